#!/usr/bin/env bash
# demo.sh: install what is missing, build heapleak, have Ruby write a 3-dump
# leak (tests/gen/leakgen.rb class_cache small), then run `heapleak stats` on
# the three dumps and `heapleak root` on samples of the top leaked class, and
# write the retainer graph as .dot (and .svg when Graphviz is installed).
#
#   ./scripts/demo.sh [OUTDIR]      default OUTDIR: build/demo
#   PRESET=dev ./scripts/demo.sh    build with another CMake preset (default: release)
#   SCENARIO=global_array ./scripts/demo.sh   another scenario of tests/gen/scenarios
#   HEAPLEAK=path/to/heapleak ./scripts/demo.sh   use that binary, build nothing
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$(pwd)

PRESET=${PRESET:-release}
SCENARIO=${SCENARIO:-class_cache}
OUT=${1:-build/demo}

./scripts/deps.sh
if [ -z "${HEAPLEAK:-}" ]; then
  cmake --preset "$PRESET"
  cmake --build --preset "$PRESET" --target heapleak
  HEAPLEAK="$ROOT_DIR/build/$PRESET/clients/cli/heapleak"
fi
[ -x "$HEAPLEAK" ] || { echo "demo: $HEAPLEAK was not built" >&2; exit 1; }

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
echo "== generating a 3-dump leak ($SCENARIO small) in $OUT"
ruby tests/gen/leakgen.rb "$SCENARIO" small "$OUT"
A="$OUT/A.json" B="$OUT/B.json" C="$OUT/C.json"

echo
echo "== heapleak stats A B C"
"$HEAPLEAK" stats "$A" "$B" "$C" | tee "$OUT/stats.txt"
"$HEAPLEAK" stats "$A" "$B" "$C" --json -o "$OUT/stats.json"

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
echo "== heapleak root B $SAMPLES   (samples of the top group of objects: $GROUP)"
rc=0
"$HEAPLEAK" root "$B" $SAMPLES -o "$OUT/root.dot" || rc=$?
case $rc in
  0) ;;
  1) echo "demo: no single object retains all samples (exit 1); the graph shows what was found" ;;
  *) echo "demo: heapleak root failed (exit $rc)" >&2; exit "$rc" ;;
esac
"$HEAPLEAK" root "$B" $SAMPLES --json -o "$OUT/root.json" || true
ruby -rjson -e 'j = JSON.parse(File.read(ARGV[0]))
  puts "nearest common retainer: #{j["retainer"] || "none"} at distance #{j["distance"]}"
  n = j["nodes"].find { |x| x["address"] == j["retainer"] }
  puts "  #{n["key"]} #{[n["file"], n["line"]].compact.join(":")}" if n' "$OUT/root.json"
RETAINER=$(ruby -rjson -e 'print JSON.parse(File.read(ARGV[0]))["retainer"].to_s' "$OUT/root.json")

if [ -n "$RETAINER" ]; then
  echo
  echo "== heapleak path B $RETAINER   (how a GC root reaches it)"
  "$HEAPLEAK" path "$B" "$RETAINER" || true
fi

if command -v dot >/dev/null 2>&1; then
  dot -Tsvg "$OUT/root.dot" -o "$OUT/root.svg"
fi

echo
echo "== files in $OUT"
echo "  dumps:      A.json B.json C.json (ground truth: truth.json)"
echo "  stats:      stats.txt stats.json"
echo "  root graph: root.dot root.json$( [ -f "$OUT/root.svg" ] && echo ' root.svg' )"
