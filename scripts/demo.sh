#!/usr/bin/env bash
# demo.sh: install what is missing, build heapleak, have Ruby write a 3-dump
# leak (tests/gen/leakgen.rb class_cache small), then find it through the
# daemon: heapleak-client starts a private heapleakd on a socket in OUTDIR,
# loads the three dumps, asks `explain` for one row per leak (the holder),
# then digs: `stats`, `root` on samples of the top leaked class and `path`
# to the retainer, writes the retainer graph as .dot (and .svg
# when Graphviz is installed), prints the one-shot `heapleak explain A B C`,
# and stops the daemon.
#
#   ./scripts/demo.sh [OUTDIR]      default OUTDIR: build/demo
#   PRESET=dev ./scripts/demo.sh    build with another CMake preset (default: release)
#   SCENARIO=global_array ./scripts/demo.sh   another scenario of tests/gen/scenarios
#   HEAPLEAK=path/to/heapleak ./scripts/demo.sh   use that build, build nothing:
#       heapleakd and heapleak-client are taken from the same build tree
#       (daemon/, clients/client/), or from HEAPLEAKD= and HEAPLEAK_CLIENT=
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$(pwd)

PRESET=${PRESET:-release}
SCENARIO=${SCENARIO:-class_cache}
OUT=${1:-build/demo}

./scripts/deps.sh
if [ -z "${HEAPLEAK:-}" ]; then
  cmake --preset "$PRESET"
  cmake --build --preset "$PRESET" --target heapleak heapleakd heapleak-client
  HEAPLEAK="$ROOT_DIR/build/$PRESET/clients/cli/heapleak"
fi
[ -x "$HEAPLEAK" ] || { echo "demo: $HEAPLEAK was not built" >&2; exit 1; }
HEAPLEAK=$(realpath "$HEAPLEAK")
TREE=$(dirname "$(dirname "$(dirname "$HEAPLEAK")")")  # BUILD/clients/cli/heapleak -> BUILD
HEAPLEAKD=${HEAPLEAKD:-$TREE/daemon/heapleakd}
CLIENT=${HEAPLEAK_CLIENT:-$TREE/clients/client/heapleak-client}
for binary in "$HEAPLEAKD" "$CLIENT"; do
  [ -x "$binary" ] || { echo "demo: $binary was not built (set HEAPLEAKD / HEAPLEAK_CLIENT)" >&2; exit 1; }
done
export HEAPLEAKD  # where heapleak-client finds the daemon to start, unless one sits next to it

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# A private daemon for this demo, on a socket in OUTDIR (unix socket paths are
# limited to ~108 bytes: fall back to a fresh directory under /tmp).
SOCKET="$OUT/heapleakd.sock"
if [ ${#SOCKET} -gt 100 ]; then SOCKET="$(mktemp -d /tmp/heapleak-demo.XXXXXX)/heapleakd.sock"; fi
hc() { "$CLIENT" --socket "$SOCKET" "$@"; }
# A daemon left over from an interrupted run would still hold the old dumps.
hc stop >/dev/null 2>&1 || true
for _ in $(seq 50); do [ -S "$SOCKET" ] || break; sleep 0.1; done  # it removes its socket as it exits
trap 'hc stop >/dev/null 2>&1 || true' EXIT

echo "== generating a 3-dump leak ($SCENARIO small) in $OUT"
ruby tests/gen/leakgen.rb "$SCENARIO" small "$OUT"
A="$OUT/A.json" B="$OUT/B.json" C="$OUT/C.json"

echo
echo "== heapleak-client --socket $SOCKET load A|B|C, then list   (the first load starts heapleakd there)"
for dump in "$A" "$B" "$C"; do
  hc load "$dump" >/dev/null
done
hc list

echo
echo "== heapleak-client explain A B C   (one row per leak: what holds it, how it grew, where it was allocated)"
hc explain "$A" "$B" "$C" | tee "$OUT/explain-daemon.txt"

echo
echo "== heapleak-client stats A B C   (digging: every new object by class, with samples)"
hc stats "$A" "$B" "$C" | tee "$OUT/stats.txt"
hc stats "$A" "$B" "$C" --json > "$OUT/stats.json"

# Four samples spread over the top group of application objects (a Ruby class
# name with >= 10 objects, not STRING/ARRAY/...: strings of many kinds share one
# group, and a sample from the benign pool would send `root` far up); else the top group.
read -r GROUP SAMPLES < <(ruby -rjson -e '
  gs = JSON.parse(File.read(ARGV[0]))["groups"]
  g = gs.find { |x| x["key"] !~ /\A[A-Z_]+(:|\z)/ && x["count"] >= 10 } || gs.first or abort("demo: no leaked group")
  s = g["samples"]
  picks = [1, 3, 5, 7].map { |k| s[s.size * k / 8] }.uniq
  puts [g["key"], *picks].join(" ")' "$OUT/stats.json")

echo
echo "== heapleak-client root B $SAMPLES   (samples of the top group of objects: $GROUP)"
rc=0
hc root "$B" $SAMPLES -o "$OUT/root.dot" || rc=$?
case $rc in
  0) ;;
  1) echo "demo: no single object retains all samples (exit 1); the graph shows what was found" ;;
  *) echo "demo: heapleak-client root failed (exit $rc)" >&2; exit "$rc" ;;
esac
hc root "$B" $SAMPLES --json -o "$OUT/root.json"
ruby -rjson -e 'j = JSON.parse(File.read(ARGV[0]))
  puts "nearest common retainer: #{j["retainer"] || "none"} at distance #{j["distance"]}"
  n = j["nodes"].find { |x| x["address"] == j["retainer"] }
  puts "  #{n["key"]} #{[n["file"], n["line"]].compact.join(":")}" if n' "$OUT/root.json"
RETAINER=$(ruby -rjson -e 'print JSON.parse(File.read(ARGV[0]))["retainer"].to_s' "$OUT/root.json")

if [ -n "$RETAINER" ]; then
  echo
  echo "== heapleak-client path B $RETAINER   (how a GC root reaches it)"
  hc path "$B" "$RETAINER" || true
fi

if command -v dot >/dev/null 2>&1; then
  hc root "$B" $SAMPLES --format svg -o "$OUT/root.svg" >/dev/null || true
fi

echo
echo "== heapleak explain A B C   (one-shot, no daemon: owners and retained bytes)"
"$HEAPLEAK" explain "$A" "$B" "$C" | tee "$OUT/explain.txt"

echo
echo "== heapleak-client stop"
hc stop
trap - EXIT

echo
echo "== files in $OUT"
echo "  dumps:      A.json B.json C.json (ground truth: truth.json)"
echo "  stats:      stats.txt stats.json"
echo "  root graph: root.dot root.json$( [ -f "$OUT/root.svg" ] && echo ' root.svg' )"
echo "  explain:    explain.txt"
