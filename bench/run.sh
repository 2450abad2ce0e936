#!/usr/bin/env bash
# bench/run.sh: measure heapleak's load, stats and root on generated dumps next to
# the floor on the same file (cat, zcat, a simdjson parse-only pass).
#
#   bench/run.sh [--large]
#
# Generates (once, into bench/out/, git-ignored) class_cache dumps of ~30 MB
# (6000 records) and ~300 MB (medium), plus ~1.7 GB (large) with --large, and a
# gzip copy of each B. Uses the release build in build/release (built if absent).
# For each data set prints: wall time, MB/s and objects/s (of uncompressed JSON,
# so the rows compare), peak RSS, and peak RSS per object. Cold rows parse
# (--no-cache); "(cache write)" rows parse and write the cache image into a
# private directory, "(cache warm)" rows map it (core/heap_cache.h).
# Environment: HEAPLEAK=path/to/heapleak benches another build (nothing is built);
# BENCH_SETS="name:size ..." picks the data sets (size as for leakgen.rb).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$(pwd)
OUT="$ROOT_DIR/bench/out"
BUILD="$ROOT_DIR/build/release"
PARSE_ONLY="$BUILD/bench/heapleak-parse-only"

SETS=("cc30:6000" "cc300:medium")
[ "${1:-}" = "--large" ] && SETS+=("cc1700:large")
[ -n "${BENCH_SETS:-}" ] && read -r -a SETS <<<"$BENCH_SETS" # e.g. BENCH_SETS="cc30:6000"

command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (./scripts/deps.sh)" >&2; exit 1; }
if [ -z "${HEAPLEAK:-}" ]; then
  HEAPLEAK="$BUILD/clients/cli/heapleak"
  if [ ! -x "$HEAPLEAK" ] || [ ! -x "$PARSE_ONLY" ]; then
    cmake --preset release
    cmake --build --preset release
  fi
fi
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# measure LABEL MB OBJECTS CMD...: one table row (stdout of CMD is discarded).
measure() {
  local label=$1 mb=$2 objs=$3; shift 3
  if ! /usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err"; then
    printf '%-34s failed: %s\n' "$label" "$(tail -n 2 "$TMP/err" | tr '\n' ' ')"
    return 0
  fi
  local secs kb
  read -r secs kb < <(tail -n 1 "$TMP/t")
  awk -v l="$label" -v s="$secs" -v kb="$kb" -v mb="$mb" -v n="$objs" 'BEGIN {
    t = (s > 0 ? s : 0.005)
    printf "%-34s %8.2f %9.0f %12.0f %9.0f %9.0f\n", l, s, mb / t, n / t, kb / 1024, kb * 1024 / n }'
}

# objects in a dump: lines that are not ROOT or SHAPE records (cached beside it)
count_objects() {
  local f=$1
  [ -s "$f.objects" ] || grep -v -e '"type":"ROOT"' -e '"type":"SHAPE"' "$f" | wc -l >"$f.objects"
  cat "$f.objects"
}

for set in "${SETS[@]}"; do
  name=${set%%:*} size=${set#*:}
  dir="$OUT/$name"
  if [ ! -s "$dir/truth.json" ]; then
    echo "bench: generating $name (class_cache $size) in $dir ..."
    ruby tests/gen/leakgen.rb class_cache "$size" "$dir"
  fi
  A="$dir/A.json" B="$dir/B.json" C="$dir/C.json"
  [ -s "$B.gz" ] || { echo "bench: gzip $B"; gzip -kf "$B"; }
  mbB=$(awk -v b="$(stat -c %s "$B")" 'BEGIN { print b / 1048576 }')
  mbABC=$(awk -v b="$(($(stat -c %s "$A") + $(stat -c %s "$B") + $(stat -c %s "$C")))" 'BEGIN { print b / 1048576 }')
  nB=$(count_objects "$B")
  nABC=$(($(count_objects "$A") + nB + $(count_objects "$C")))
  read -r -a SAMPLES < <(ruby -rjson -e 'puts JSON.parse(File.read(ARGV[0]))["root"]["samples"].join(" ")' "$dir/truth.json")
  cat "$A" "$B" "$C" "$B.gz" >/dev/null # warm the page cache

  echo
  printf '== %s: B %.0f MB, %d objects; A+B+C %.0f MB, %d objects (%d cores)\n' "$name" "$mbB" "$nB" "$mbABC" "$nABC" "$(nproc)"
  printf '%-34s %8s %9s %12s %9s %9s\n' "command" "wall s" "MB/s" "objects/s" "RSS MB" "B/object"
  measure "cat B" "$mbB" "$nB" cat "$B"
  measure "zcat B.gz" "$mbB" "$nB" zcat "$B.gz"
  if [ -x "$PARSE_ONLY" ]; then
    measure "parse-only B (On Demand, keys)" "$mbB" "$nB" "$PARSE_ONLY" "$B"
    measure "parse-only B (DOM, full)" "$mbB" "$nB" "$PARSE_ONLY" --dom "$B"
  else
    printf '%-34s skipped: %s not built\n' "parse-only B (simdjson)" "${PARSE_ONLY#"$ROOT_DIR"/}"
  fi
  measure "heapleak info B" "$mbB" "$nB" "$HEAPLEAK" info "$B" --no-cache
  measure "heapleak info B.gz" "$mbB" "$nB" "$HEAPLEAK" info "$B.gz" --no-cache
  measure "heapleak stats A B C" "$mbABC" "$nABC" "$HEAPLEAK" stats "$A" "$B" "$C" --no-cache
  measure "heapleak root B (${#SAMPLES[@]} samples)" "$mbB" "$nB" "$HEAPLEAK" root "$B" "${SAMPLES[@]}" --no-cache
  measure "heapleak explain A B C" "$mbABC" "$nABC" "$HEAPLEAK" explain "$A" "$B" "$C" --no-cache
  CACHE="$TMP/cache"
  rm -rf "$CACHE"
  measure "heapleak info B (cache write)" "$mbB" "$nB" "$HEAPLEAK" info "$B" --cache-dir "$CACHE"
  measure "heapleak info B (cache warm)" "$mbB" "$nB" "$HEAPLEAK" info "$B" --cache-dir "$CACHE"
  measure "heapleak explain A B C (cache write)" "$mbABC" "$nABC" "$HEAPLEAK" explain "$A" "$B" "$C" --cache-dir "$CACHE"
  measure "heapleak explain A B C (cache warm)" "$mbABC" "$nABC" "$HEAPLEAK" explain "$A" "$B" "$C" --cache-dir "$CACHE"
  measure "heapleak stats A B C (cache warm)" "$mbABC" "$nABC" "$HEAPLEAK" stats "$A" "$B" "$C" --cache-dir "$CACHE"
  rm -rf "$CACHE"
  if [ -x "$BUILD/bench/heapleak-analysis-bench" ]; then
    echo "-- dominators, retained sizes and explain on loaded heaps:"
    "$BUILD/bench/heapleak-analysis-bench" "$B" "$A" "$C"
  fi
done
echo
echo "MB and objects are of the uncompressed JSON (zcat and info B.gz too); B/object = peak RSS / objects."
