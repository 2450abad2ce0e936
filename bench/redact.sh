#!/usr/bin/env bash
# bench/redact.sh HEAPLEAK SYNTH [SIZE]: `heapleak redact` beside its floors on
# one synthetic dump (default 400M): a plain copy (cat > file; sync, since
# redact fsyncs), gzip -1 (the compression a gz output needs) and zcat.
set -euo pipefail
heapleak=$(realpath "$1") synth=$(realpath "$2") size=${3:-400M}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$synth" --out "$work" --bytes "$size" --single >/dev/null 2>&1
cd "$work"
t() { local label=$1; shift; /usr/bin/time -f "%e s  %M KB  $label" "$@" 2>&1 >/dev/null | tail -1; }
echo "B.json: $(stat -c %s B.json) bytes, $(grep -c '"type":"STRING"' B.json) strings"
t "floor: cat > file; sync" sh -c 'cat B.json > copy.json; sync copy.json'
t "heapleak redact B.json R.json" "$heapleak" redact B.json R.json
t "floor: gzip -1" sh -c 'gzip -1 -c B.json > B.json.gz'
t "floor: zcat" zcat B.json.gz
t "heapleak redact B.json.gz R.json.gz" "$heapleak" redact B.json.gz R.json.gz
