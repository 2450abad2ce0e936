#!/usr/bin/env bash
# bench/run.sh: measure heapleak's load, stats, root and explain on generated
# dumps next to the floor on the same file (cat, zcat, a simdjson parse-only
# pass), with the ratio to that floor.
#
#   bench/run.sh [--large]
#
# Data sets (generated once into bench/out/, git-ignored):
#   cc30, cc130, cc300  Ruby (tests/gen/leakgen.rb class_cache): ~30, ~130 and ~300 MB per
#                dump (cc130: the bar issue 46 sets stats against the seed on).
#   --large adds two synthetic sets written by heapleak-synth (bench/synthetic_dump.cpp,
#   seconds instead of Ruby's hours):
#   syn1700      A, B, C of ~1.8 GB each (B ~6 M objects, traced), a known leak.
#   syn10g       one ~10 GB dump (~35 M objects): info, root, path and top within
#                the memory it takes (peak RSS per object), then every query
#                in a 4 GB memory cgroup, cold and warm (bench/fit_budget.sh;
#                $BENCH_MEMLIMIT changes the limit; skipped without cgroup v1).
#   syn3x10g     A, B, C of ~11 GB each (~107 M objects, traced): explain A B C
#                beside three parse-only passes, unconstrained, then in the 4 GB
#                cgroup without the cache (refused before it loads), with the
#                cache written, and warm. Deleted afterwards (33 GB; BENCH_KEEP=1
#                keeps it).
# Each B also gets a gzip copy (not for syn10g). Uses the release build in
# build/release (built if absent).
# Per data set: wall time, MB/s and objects/s (of uncompressed JSON, so rows
# compare), peak RSS and peak RSS per object; the floor each row is measured
# against and the ratio; then one load's steps (HEAPLEAK_PROFILE=1) and the
# analyses on loaded heaps (heapleak-analysis-bench).
# Cold rows parse (HEAPLEAK_NO_CACHE=1 below); "(cache write)" rows parse and
# write the cache image into a private directory, "(cache warm)" rows map it
# (core/images/heap_cache.h) and compute the analyses (and write them next to the
# image), "(cache warm, analyses)" rows map the image and the analyses.
# Environment: BENCH_REPEAT=N runs each row N times and prints the median
# (this VM's first touches of fresh memory vary run to run); BENCH_SETTLE=S
# sleeps S seconds before each run, so that the memory the run before freed
# has gone back to the host (~20 s here) and every run pays the first touch
# a user's first run pays (bench/README.md, "The first touch of fresh memory");
# HEAPLEAK=path/to/heapleak benches another build (nothing is built);
# BENCH_SETS="name:size ..." picks the data sets (a name starting with "syn" is
# synthetic, its size as for heapleak-synth --bytes; otherwise as for leakgen.rb);
# "name:size:goals" runs only the rows issue 46's goals read (the parse-only
# floors, info B, stats, explain and the two touch floors), e.g.
# BENCH_SETTLE=20 BENCH_REPEAT=3 BENCH_SETS="cc130:32000:goals syn1700:1.7G:goals".
set -euo pipefail
# Cold rows must parse: the cache is off unless a row passes --cache-dir.
export HEAPLEAK_NO_CACHE=1
cd "$(dirname "$0")/.."
ROOT_DIR=$(pwd)
OUT="$ROOT_DIR/bench/out"
BUILD="$ROOT_DIR/build/release"
PARSE_ONLY="$BUILD/bench/heapleak-parse-only"
TOUCH_FLOOR="$BUILD/bench/heapleak-touch-floor"
SYNTH="$BUILD/bench/heapleak-synth"

SETS=("cc30:6000" "cc130:32000" "cc300:medium")
[ "${1:-}" = "--large" ] && SETS+=("syn1700:1.7G" "syn10g:10G:single" "syn3x10g:10G:explain")
[ -n "${BENCH_SETS:-}" ] && read -r -a SETS <<<"$BENCH_SETS" # e.g. BENCH_SETS="cc30:6000"

command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (./scripts/deps.sh)" >&2; exit 1; }
if [ -z "${HEAPLEAK:-}" ]; then
  HEAPLEAK="$BUILD/clients/cli/heapleak"
  if [ ! -x "$HEAPLEAK" ] || [ ! -x "$PARSE_ONLY" ] || [ ! -x "$SYNTH" ]; then
    cmake --preset release
    cmake --build --preset release -j2
  fi
fi
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Floors of the current data set, seconds: set by `floor NAME CMD...`.
declare -A FLOOR
# measure LABEL MB OBJECTS FLOOR_NAME TARGET CMD...: one table row (stdout of
# CMD is discarded). FLOOR_NAME names a measured floor ("-": none; "x3" after
# it: three times that floor); TARGET is the ratio or time the issue asks for.
measure() {
  local label=$1 mb=$2 objs=$3 floor=$4 target=$5; shift 5
  # BENCH_REPEAT runs: the median wall time (with its cpu), the largest RSS.
  local runs=() k
  for ((k = 0; k < ${BENCH_REPEAT:-1}; k++)); do
    [ "${BENCH_SETTLE:-0}" = 0 ] || sleep "$BENCH_SETTLE"
    if ! /usr/bin/time -f '%e %M %U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err"; then
      printf '%-36s failed: %s\n' "$label" "$(tail -n 2 "$TMP/err" | tr '\n' ' ')"
      return 0
    fi
    runs+=("$(tail -n 1 "$TMP/t")")
  done
  local secs kb user sys fs=""
  read -r secs kb user sys < <(printf '%s\n' "${runs[@]}" | sort -n | awk '{ r[NR] = $0 }
    END { print r[int((NR + 1) / 2)] }')
  kb=$(printf '%s\n' "${runs[@]}" | awk '$2 > m { m = $2 } END { print m }')
  case $floor in
    -) ;;
    *x3) fs=$(awk -v f="${FLOOR[${floor%x3}]:-}" 'BEGIN { if (f != "") print 3 * f }') ;;
    *) fs=${FLOOR[$floor]:-} ;;
  esac
  awk -v l="$label" -v s="$secs" -v kb="$kb" -v mb="$mb" -v n="$objs" -v fs="$fs" \
      -v fl="$floor" -v tg="$target" -v cpu="$(awk -v u="$user" -v y="$sys" 'BEGIN { print u + y }')" 'BEGIN {
    t = (s > 0 ? s : 0.005)
    ratio = (fs != "" && fs > 0) ? sprintf("%.2fx %s", s / fs, fl) : "-"
    printf "%-36s %7.2f %6.2f %7.0f %11.0f %7.0f %6.1f  %-13s %s\n", l, s, cpu, mb / t, n / t,
      kb / 1024, kb * 1024 / n, ratio, tg }'
  LAST_SECS=$secs LAST_KB=$kb
}
# floor NAME LABEL MB OBJECTS CMD...: a floor row, remembered as NAME.
floor() {
  local name=$1; shift
  LAST_SECS=""
  measure "$1" "$2" "$3" - "floor" "${@:4}"
  [ -n "$LAST_SECS" ] && FLOOR[$name]=$LAST_SECS
  return 0
}

# objects in a dump: lines that are not ROOT or SHAPE records (cached beside it)
count_objects() {
  local f=$1
  [ -s "$f.objects" ] || grep -v -e '"type":"ROOT"' -e '"type":"SHAPE"' "$f" | wc -l >"$f.objects"
  cat "$f.objects"
}
mb_of() { awk -v b="$(($(stat -c %s "$@" | paste -sd+)))" 'BEGIN { print b / 1048576 }'; }

header() {
  printf '%-36s %7s %6s %7s %11s %7s %6s  %-13s %s\n' "command" "wall s" "cpu s" "MB/s" \
    "objects/s" "RSS MB" "B/obj" "wall/floor" "target"
}

# goals: the ratios issue 46 names, from the rows above (the set's medians):
# explain's peak against info B's; explain's time against the three
# parse-only passes plus the first touch of explain's peak; info B's
# against parse-only B plus the first touch of its peak; stats against the
# Crystal seed, whose figures are scaled from what issue 2 measured here
# (39 s and 1.7 GB on class_cache medium, 3 x ~340 MB, 3.3 M objects: 26 MB/s,
# ~540 bytes per object; issue 46's 3 x 130 MB bar is 640 MiB).
goals() {
  echo "-- goals (issue 46): measured / floor, then the goal"
  awk -v ek="$EXPLAIN_KB" -v ik="$INFO_KB" -v es="$EXPLAIN_SECS" -v is="$INFO_SECS" \
      -v a="${FLOOR[poA]:-}" -v b="${FLOOR[po]:-}" -v c="${FLOOR[poC]:-}" \
      -v te="$TOUCH_EXPLAIN" -v ti="$TOUCH_INFO" -v ss="$STATS_SECS" -v sk="$STATS_KB" \
      -v mb="$mbABC" -v n="$nABC" 'BEGIN {
    if (ik > 0) printf "   %-44s %6.2fx   <= 1.15x\n", "explain peak / info B peak", ek / ik
    if (a != "" && b != "" && c != "" && te != "")
      printf "   %-44s %6.2fx   <= 1.2x  (%.2f s / (%.2f + %.2f s))\n",
        "explain / (parse-only A+B+C + touch floor)", es / (a + b + c + te), es, a + b + c, te
    if (b != "" && ti != "")
      printf "   %-44s %6.2fx   <= 1.2x  (%.2f s / (%.2f + %.2f s))\n",
        "info B / (parse-only B + touch floor)", is / (b + ti), is, b, ti
    seed_s = mb / 26.3; seed_kb = n * 540 / 1024
    printf "   %-44s %6.1fx   >= 8x    (%.0f MiB against ~%.0f MiB)\n",
      "stats: RSS, seed / heapleak", seed_kb / sk, sk / 1024, seed_kb / 1024
    printf "   %-44s %6.1fx   >= 50x   (%.2f s against ~%.1f s)\n",
      "stats: time, seed / heapleak", seed_s / ss, ss, seed_s }'
}

# explain_rows FLOOR TARGET: explain A B C of the current data set, then the
# same with each read method forced: what the probe's choice saved
# (core/reading/read_method.h).
explain_rows() {
  local floor=$1 target=$2
  measure "heapleak explain A B C" "$mbABC" "$nABC" "$floor" "$target" "$HEAPLEAK" explain "$A" "$B" "$C"
  local cli_secs=$LAST_SECS cli_kb=$LAST_KB
  EXPLAIN_SECS=$LAST_SECS EXPLAIN_KB=$LAST_KB
  # The same through a fresh daemon (engine/load_plan.h's plan, run by the
  # daemon; issue 43: within 1.1x of the CLI's time and peak memory).
  measure "heapleak-client explain (fresh daemon)" "$mbABC" "$nABC" "$floor" "<= 1.1x the CLI" \
    bench/daemon_explain.sh "$(dirname "$(dirname "$(dirname "$HEAPLEAK")")")" "$A" "$B" "$C"
  awk -v s="$LAST_SECS" -v k="$LAST_KB" -v cs="$cli_secs" -v ck="$cli_kb" 'BEGIN {
    if (cs > 0 && ck > 0) printf "%-36s time %.2fx, peak RSS %.2fx the CLI'"'"'s\n", "  daemon / CLI", s / cs, k / ck }'
  HEAPLEAK_READ=map measure "heapleak explain A B C (mapped)" "$mbABC" "$nABC" "$floor" "" \
    "$HEAPLEAK" explain "$A" "$B" "$C"
  HEAPLEAK_READ='read' measure "heapleak explain A B C (read(2))" "$mbABC" "$nABC" "$floor" "" \
    "$HEAPLEAK" explain "$A" "$B" "$C"
}

for set in "${SETS[@]}"; do
  IFS=: read -r name size mode <<<"$set"
  dir="$OUT/$name"
  if [ ! -s "$dir/truth.json" ]; then
    mkdir -p "$dir"
    if [[ $name == syn* ]]; then
      single=$([ "$mode" = single ] && echo --single || true)
      echo "bench: writing $name (heapleak-synth --bytes $size --traced $single) in $dir ..."
      "$SYNTH" --out "$dir" --bytes "$size" --traced $single
    else
      echo "bench: generating $name (class_cache $size) in $dir ..."
      ruby tests/gen/leakgen.rb class_cache "$size" "$dir"
    fi
  fi
  B="$dir/B.json"
  read -r -a SAMPLES < <(ruby -rjson -e 'puts JSON.parse(File.read(ARGV[0]))["root"]["samples"].join(" ")' "$dir/truth.json")
  nB=$(count_objects "$B")
  mbB=$(mb_of "$B")
  FLOOR=()
  echo
  if [ "$mode" = "single" ]; then
    printf '== %s: B %.0f MB, %d objects, one dump (%d cores, load %s)\n' "$name" "$mbB" "$nB" \
      "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
    header
    floor cat "cat B" "$mbB" "$nB" cat "$B"
    [ -x "$PARSE_ONLY" ] && floor po "parse-only B (On Demand, keys)" "$mbB" "$nB" "$PARSE_ONLY" "$B"
    measure "heapleak info B" "$mbB" "$nB" po "<= 1.5x, RSS < 4 GB" "$HEAPLEAK" info "$B"
    measure "heapleak root B (${#SAMPLES[@]} samples)" "$mbB" "$nB" po "RSS < 4 GB" \
      "$HEAPLEAK" root "$B" "${SAMPLES[@]}"
    measure "heapleak path B" "$mbB" "$nB" po "RSS < 4 GB" "$HEAPLEAK" path "$B" "${SAMPLES[0]}"
    measure "heapleak top B (dominators)" "$mbB" "$nB" po "RSS < 4 GB" "$HEAPLEAK" top "$B"
    echo "-- one load, step by step (HEAPLEAK_PROFILE=1 heapleak info B):"
    HEAPLEAK_PROFILE=1 "$HEAPLEAK" info "$B" 2>&1 >/dev/null | sed 's/^/   /'
    # Peak RSS above counts mapped pages the kernel may drop: does each query
    # fit a memory limit? explain compares B with syn1700's A when it is there.
    echo "-- within a ${BENCH_MEMLIMIT:-4G} memory limit, each query in a cgroup of its own (bench/fit_budget.sh):"
    SMALL_A="$OUT/syn1700/A.json"
    [ -s "$SMALL_A" ] || SMALL_A=""
    bench/fit_budget.sh "$HEAPLEAK" "$dir" $SMALL_A | sed 's/^/   /'
    continue
  fi
  A="$dir/A.json" C="$dir/C.json"
  if [ "$mode" = "explain" ]; then
    # The issue 30 row: explain on three ~11 GB dumps, at the parse floor and
    # within 4 GB. Too large for the page cache: every row reads from disk.
    mbABC=$(mb_of "$A" "$B" "$C")
    nABC=$(($(count_objects "$A") + nB + $(count_objects "$C")))
    printf '== %s: A+B+C %.0f MB, %d objects (%d cores, load %s)\n' "$name" "$mbABC" "$nABC" \
      "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
    header
    # The floor: the three parse-only passes' wall times added up.
    FLOOR[po3]=0
    for f in "$A" "$B" "$C"; do
      floor po1 "parse-only $(basename "$f")" "$(mb_of "$f")" "$(count_objects "$f")" "$PARSE_ONLY" "$f"
      FLOOR[po3]=$(awk -v a="${FLOOR[po3]}" -v b="${FLOOR[po1]:-0}" 'BEGIN { print a + b }')
    done
    explain_rows po3 "<= 15 s, <= 40 B/obj"
    echo "-- within ${BENCH_MEMLIMIT:-4G} (bench/memlimit.sh): without the cache, with it (written), warm:"
    CACHE="$dir/cache"
    rm -rf "$CACHE"
    bench/memlimit.sh --header "${BENCH_MEMLIMIT:-4G}" "explain A B C (--no-cache)" \
      "$HEAPLEAK" explain "$A" "$B" "$C" --no-cache | sed 's/^/   /'
    bench/memlimit.sh "${BENCH_MEMLIMIT:-4G}" "explain A B C (cache written)" \
      "$HEAPLEAK" explain "$A" "$B" "$C" --cache-dir "$CACHE" | sed 's/^/   /'
    bench/memlimit.sh "${BENCH_MEMLIMIT:-4G}" "explain A B C (warm)" \
      "$HEAPLEAK" explain "$A" "$B" "$C" --cache-dir "$CACHE" | sed 's/^/   /'
    echo "   goal: <= 25 s cold in 4 GB, with or without the cache"
    rm -rf "$CACHE"
    [ "${BENCH_KEEP:-0}" = 1 ] || { rm -rf "$dir"; echo "bench: deleted $dir (BENCH_KEEP=1 keeps it)"; }
    continue
  fi
  [ -s "$B.gz" ] || { echo "bench: gzip $B"; gzip -kf "$B"; }
  mbABC=$(mb_of "$A" "$B" "$C")
  nABC=$(($(count_objects "$A") + nB + $(count_objects "$C")))
  cat "$A" "$B" "$C" "$B.gz" >/dev/null # warm the page cache

  printf '== %s: B %.0f MB, %d objects; A+B+C %.0f MB, %d objects (%d cores, load %s)\n' "$name" \
    "$mbB" "$nB" "$mbABC" "$nABC" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
  header
  # "goals" mode: only the rows issue 46's goals read (with BENCH_SETTLE=20
  # and BENCH_REPEAT=3, 7 rows of a minute each instead of 33).
  goals_only=$([ "$mode" = goals ] && echo 1 || true)
  [ -n "$goals_only" ] || floor cat "cat B" "$mbB" "$nB" cat "$B"
  [ -n "$goals_only" ] || floor zcat "zcat B.gz" "$mbB" "$nB" zcat "$B.gz"
  if [ -x "$PARSE_ONLY" ]; then
    floor po "parse-only B (On Demand, keys)" "$mbB" "$nB" "$PARSE_ONLY" "$B"
    [ -n "$goals_only" ] || measure "parse-only B (DOM, full)" "$mbB" "$nB" po "" "$PARSE_ONLY" --dom "$B"
  else
    printf '%-36s skipped: %s not built\n' "parse-only B (simdjson)" "${PARSE_ONLY#"$ROOT_DIR"/}"
  fi
  # The other two dumps' parse-only floors: explain's goal is against all three.
  floor poA "parse-only A" "$(mb_of "$A")" "$(count_objects "$A")" "$PARSE_ONLY" "$A"
  floor poC "parse-only C" "$(mb_of "$C")" "$(count_objects "$C")" "$PARSE_ONLY" "$C"
  measure "heapleak info B" "$mbB" "$nB" po "<= 1.3x" "$HEAPLEAK" info "$B"
  INFO_SECS=$LAST_SECS INFO_KB=$LAST_KB
  # The other floor: faulting in as much fresh memory as info B peaked at.
  TOUCH_INFO=""
  [ -x "$TOUCH_FLOOR" ] && measure "first touch of info B's peak" "$mbB" "$nB" - "floor" \
    "$TOUCH_FLOOR" "$((LAST_KB / 1024))" && TOUCH_INFO=$LAST_SECS
  if [ -n "$goals_only" ]; then
    measure "heapleak stats A B C" "$mbABC" "$nABC" pox3 "" "$HEAPLEAK" stats "$A" "$B" "$C"
    STATS_SECS=$LAST_SECS STATS_KB=$LAST_KB
    measure "heapleak explain A B C" "$mbABC" "$nABC" pox3 "" "$HEAPLEAK" explain "$A" "$B" "$C"
    EXPLAIN_SECS=$LAST_SECS EXPLAIN_KB=$LAST_KB
    TOUCH_EXPLAIN=""
    [ -x "$TOUCH_FLOOR" ] && measure "first touch of explain's peak" "$mbABC" "$nABC" - "floor" \
      "$TOUCH_FLOOR" "$((EXPLAIN_KB / 1024))" && TOUCH_EXPLAIN=$LAST_SECS
    goals
    continue
  fi
  # The read method the probe did not pick, for what it saved (core/reading/read_method.h).
  HEAPLEAK_READ=map measure "heapleak info B (mapped)" "$mbB" "$nB" po "" "$HEAPLEAK" info "$B"
  HEAPLEAK_READ='read' measure "heapleak info B (read(2))" "$mbB" "$nB" po "" "$HEAPLEAK" info "$B"
  HEAPLEAK_NO_PREFAULT=1 measure "heapleak info B (no prefaulter)" "$mbB" "$nB" po "" \
    "$HEAPLEAK" info "$B"
  # Huge pages forced on and off (core/base/huge_pages.h decides by free memory otherwise).
  HEAPLEAK_HUGEPAGES=0 measure "heapleak info B (4 KiB pages)" "$mbB" "$nB" po "" \
    "$HEAPLEAK" info "$B"
  HEAPLEAK_HUGEPAGES=1 measure "heapleak info B (huge pages)" "$mbB" "$nB" po "" \
    "$HEAPLEAK" info "$B"
  measure "heapleak info B.gz" "$mbB" "$nB" zcat "<= 1.3x" "$HEAPLEAK" info "$B.gz"
  measure "heapleak stats A B C" "$mbABC" "$nABC" pox3 "<= 50 B/obj" "$HEAPLEAK" stats "$A" "$B" "$C"
  STATS_SECS=$LAST_SECS STATS_KB=$LAST_KB
  measure "heapleak root B (${#SAMPLES[@]} samples)" "$mbB" "$nB" po "" "$HEAPLEAK" root "$B" "${SAMPLES[@]}"
  explain_rows pox3 "<= 2 s (large), <= 80 B/obj"
  TOUCH_EXPLAIN=""
  [ -x "$TOUCH_FLOOR" ] && measure "first touch of explain's peak" "$mbABC" "$nABC" - "floor" \
    "$TOUCH_FLOOR" "$((EXPLAIN_KB / 1024))" && TOUCH_EXPLAIN=$LAST_SECS
  goals
  HEAPLEAK_HUGEPAGES=0 measure "heapleak explain A B C (4 KiB pages)" "$mbABC" "$nABC" pox3 "" \
    "$HEAPLEAK" explain "$A" "$B" "$C"
  HEAPLEAK_HUGEPAGES=1 measure "heapleak explain A B C (huge pages)" "$mbABC" "$nABC" pox3 "" \
    "$HEAPLEAK" explain "$A" "$B" "$C"
  CACHE="$TMP/cache"
  rm -rf "$CACHE"
  measure "heapleak info B (cache write)" "$mbB" "$nB" - "" "$HEAPLEAK" info "$B" --cache-dir "$CACHE"
  measure "heapleak info B (cache warm)" "$mbB" "$nB" - "<= 0.3 s (large)" "$HEAPLEAK" info "$B" --cache-dir "$CACHE"
  measure "heapleak explain A B C (cache write)" "$mbABC" "$nABC" - "" "$HEAPLEAK" explain "$A" "$B" "$C" --cache-dir "$CACHE"
  # Images warm, B's analyses computed and written again (what a first explain
  # after `info` costs), then mapped.
  rm -f "$CACHE"/*.hlana
  measure "heapleak explain A B C (cache warm)" "$mbABC" "$nABC" - "" \
    env HEAPLEAK_PROFILE=1 "$HEAPLEAK" explain "$A" "$B" "$C" --cache-dir "$CACHE"
  grep '^heapleak: cache:' "$TMP/err" | sed 's/^/   /' || true
  measure "heapleak explain (warm, analyses)" "$mbABC" "$nABC" - "<= 1 s (large)" "$HEAPLEAK" explain "$A" "$B" "$C" --cache-dir "$CACHE"
  measure "heapleak stats A B C (cache warm)" "$mbABC" "$nABC" - "" "$HEAPLEAK" stats "$A" "$B" "$C" --cache-dir "$CACHE"
  rm -rf "$CACHE"
  echo "-- one load, step by step (HEAPLEAK_PROFILE=1 heapleak info B):"
  HEAPLEAK_PROFILE=1 "$HEAPLEAK" info "$B" 2>&1 >/dev/null | sed 's/^/   /'
  if [ -x "$BUILD/bench/heapleak-analysis-bench" ]; then
    echo "-- dominators, retained sizes and explain on loaded heaps:"
    "$BUILD/bench/heapleak-analysis-bench" "$B" "$A" "$C"
  fi
done
echo
echo "MB and objects are of the uncompressed JSON (zcat and info B.gz too); B/obj = peak RSS / objects."
echo "Floors: cat, zcat and parse-only of B; 'po x3' is three parse-only passes (the three dumps)."
echo "cpu s = user + system time of all threads: on a shared machine (see load) it moves less than wall."
