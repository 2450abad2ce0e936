#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan+UBSan+coverage) in their own
# build dir, replays every saved regression input, then fuzzes each target for
# SECONDS (default 30) on a scratch copy of its seed corpus. Prints executions
# per target. Exits non-zero on any crash, leaving the crash file in
# $OUT/crashes/<target>/ (copy it to tests/fuzz/regressions/<target>/).
#   usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
#          tests/fuzz/run.sh --build-only   (scripts/test.sh builds ahead)
#   env:   BUILD (build dir, default build/fuzz), OUT (default $BUILD/out), JOBS (default 2)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build_only=0
[ "${1:-}" = "--build-only" ] && { build_only=1; shift; }
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(record_parser loader gzip_reader frame_reader session cache_image)
build="${BUILD:-$root/build/fuzz}"
out="${OUT:-$build/out}"
jobs="${JOBS:-2}"

# Inputs beyond these sizes only slow the run down: limits in the targets are small.
declare -A max_len=([record_parser]=4096 [loader]=16384 [gzip_reader]=16384 [frame_reader]=4096 [session]=4096 [cache_image]=4096)

cxx="${CXX_FUZZ:-$(command -v clang++ || command -v clang++-14)}"
[ -n "$cxx" ] || { echo "run.sh: clang++ not found" >&2; exit 2; }
# -g1: line tables for the crash reports, a third less compile time than -g.
cmake -S "$here" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log" >&2; exit 2; }
nice cmake --build "$build" -j "$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}") >"$build.build.log" 2>&1 \
  || { tail -50 "$build.build.log" >&2; exit 2; }
[ "$build_only" = 1 ] && exit 0

export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$out"
status=0
summary=""
for t in "${targets[@]}"; do
  bin="$build/fuzz_$t"
  # 1. Regressions: every saved crash input must now pass.
  if compgen -G "$here/regressions/$t/*" >/dev/null; then
    if ! "$bin" "$here"/regressions/"$t"/* >"$out/$t.regress.log" 2>&1; then
      echo "FAIL $t: a saved regression input crashes again (see $out/$t.regress.log)"
      grep -m5 -E 'ERROR: |SUMMARY: |runtime error|Running: ' "$out/$t.regress.log" | sed 's/^/       /' 
      status=1
    else
      echo "ok   $t: $(ls "$here/regressions/$t" | wc -l) regression inputs replayed"
    fi
  fi
  # 2. Fuzz from the seed corpus (copied: the repo corpus stays small and reviewed).
  work="$out/corpus/$t"
  crashes="$out/crashes/$t"
  rm -rf "$crashes"  # only this run's findings are listed (and left) there
  mkdir -p "$work" "$crashes"
  [ -d "$here/corpus/$t" ] && cp -n "$here/corpus/$t"/* "$work"/ 2>/dev/null
  dict=()
  [ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
  log="$out/$t.log"
  "$bin" "$work" -max_total_time="$seconds" -max_len="${max_len[$t]}" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "${dict[@]}" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ $rc -ne 0 ]; then
    echo "FAIL $t: exit $rc after ${execs:-?} executions; crash file(s):"
    ls "$crashes"/* 2>/dev/null | sed 's/^/       /'
    grep -m3 -E 'ERROR: |SUMMARY: |runtime error' "$log" | sed 's/^/       /'
    status=1
  else
    echo "ok   $t: ${execs:-?} executions in ${seconds}s, ${cov:-cov ?}"
  fi
  summary+="$t ${execs:-0} $rc"$'\n'
done
echo "---"
printf '%s' "$summary" | awk '{printf "%-14s %12s executions  exit %s\n", $1, $2, $3}'
exit $status
