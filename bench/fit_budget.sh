#!/usr/bin/env bash
# bench/fit_budget.sh: does each query on one big dump fit a memory limit
# (issue 15: a 10 GB dump answers within 4 GB)? Every row runs in its own
# memory cgroup (bench/memlimit.sh): completed or OOM, the group's peak
# charge, peak RSS, the anonymous peak, wall time. bench/run.sh --large runs
# it on syn10g.
#
#   bench/fit_budget.sh HEAPLEAK DIR [A.json]
#
# DIR holds B.json and truth.json (heapleak-synth --single); A.json, when
# given, is a smaller dump explain compares B against (`explain A B`).
# Three passes: cold without the cache (the parse stays in anonymous
# memory), cold with an empty cache (a heap over the remap threshold is
# written to its image and continues on the mapping), warm (mapped). The
# cache directory is DIR/cache, deleted at the end. Limit: $BENCH_MEMLIMIT
# (default 4G).
set -euo pipefail
HEAPLEAK=$1 DIR=$2 A=${3:-}
cd "$(dirname "$0")/.."
LIMIT=${BENCH_MEMLIMIT:-4G}
B="$DIR/B.json"
CACHE="$DIR/cache"
read -r -a SAMPLES < <(ruby -rjson -e 'puts JSON.parse(File.read(ARGV[0]))["root"]["samples"].join(" ")' "$DIR/truth.json")

# queries LABEL_SUFFIX ARGS...: one row per query, the extra ARGS after each.
queries() {
  local suffix=$1; shift
  [ "$suffix" = "cold, cache" ] && rm -rf "$CACHE"
  bench/memlimit.sh "$LIMIT" "info B ($suffix)" "$HEAPLEAK" info "$B" "$@"
  [ "$suffix" = "cold, cache" ] && rm -rf "$CACHE"
  bench/memlimit.sh "$LIMIT" "stats B B ($suffix)" "$HEAPLEAK" stats "$B" "$B" "$@"
  [ "$suffix" = "cold, cache" ] && rm -rf "$CACHE"
  bench/memlimit.sh "$LIMIT" "root B (${#SAMPLES[@]} samples, $suffix)" "$HEAPLEAK" root "$B" "${SAMPLES[@]}" "$@"
  [ "$suffix" = "cold, cache" ] && rm -rf "$CACHE"
  bench/memlimit.sh "$LIMIT" "path B ($suffix)" "$HEAPLEAK" path "$B" "${SAMPLES[0]}" "$@"
  [ "$suffix" = "cold, cache" ] && rm -rf "$CACHE"
  bench/memlimit.sh "$LIMIT" "top B ($suffix)" "$HEAPLEAK" top "$B" "$@"
  if [ -n "$A" ]; then
    [ "$suffix" = "cold, cache" ] && rm -rf "$CACHE"
    bench/memlimit.sh "$LIMIT" "explain A B ($suffix)" "$HEAPLEAK" explain "$A" "$B" "$@"
  fi
  return 0
}

bench/memlimit.sh --header
queries "cold, no cache" --no-cache
queries "cold, cache" --cache-dir "$CACHE"
# Warm: every image the queries need is there (full and identity-only).
queries "warm" --cache-dir "$CACHE"
rm -rf "$CACHE"
echo "cg max = the group's peak charge (anonymous + page cache it touched; the kernel reclaims"
echo "clean file pages at the limit, so it sits near the limit whenever reclaim happened);"
echo "anon = the anonymous peak (RssAnon, sampled every 50 ms): what no limit can reclaim."
