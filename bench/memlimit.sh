#!/usr/bin/env bash
# bench/memlimit.sh: does a command fit a memory limit? Runs it in a fresh
# cgroup v1 memory group capped at LIMIT (memory.limit_in_bytes, and
# memory.memsw.limit_in_bytes when the kernel has it), so mapped file pages the
# kernel may drop are reclaimed instead of counted, and a command that needs
# more anonymous memory than the limit is killed (OOM) instead of swapping.
# Peak RSS from /usr/bin/time counts those droppable pages; this does not.
#
#   bench/memlimit.sh [--header] LIMIT LABEL CMD...     (LIMIT as for the cgroup: 4G, 512M)
#
# Prints one row: label, limit, completed (yes / OOM / exit N), the group's
# memory.max_usage_in_bytes (anonymous plus page cache it charged, so it sits
# at the limit whenever the kernel had to reclaim), the process's VmHWM (peak
# RSS, mapped pages included) and its anonymous peak (RssAnon from
# /proc/PID/status summed over the group's processes, sampled every 50 ms:
# a lower bound within a sample), wall
# seconds. Needs root and a writable /sys/fs/cgroup/memory; without it the row
# says "skipped" and the script exits 0. stdout of CMD is discarded.
set -uo pipefail

row() { printf '%-40s %6s %-10s %9s %9s %9s %8s\n' "$@"; }
if [ "${1:-}" = "--header" ]; then
  shift
  row "command" "limit" "completed" "cg max MB" "HWM MB" "anon MB" "wall s"
  [ $# -eq 0 ] && exit 0
fi
[ $# -ge 3 ] || { echo "usage: bench/memlimit.sh [--header] LIMIT LABEL CMD..." >&2; exit 2; }
limit=$1 label=$2
shift 2

CGROOT=/sys/fs/cgroup/memory
CG="$CGROOT/heapleak-memlimit.$$"
if [ ! -w "$CGROOT" ] || ! mkdir "$CG" 2>/dev/null; then
  row "$label" "$limit" "skipped: no writable cgroup v1 memory controller ($CGROOT)" "" "" "" ""
  exit 0
fi
cleanup() {
  # Pages the command left in the page cache move to the parent group.
  [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
  rm -f "$TMPERR"
}
TMPERR=$(mktemp)
trap cleanup EXIT
echo 0 >"$CG/memory.swappiness" 2>/dev/null
if ! echo "$limit" >"$CG/memory.limit_in_bytes" 2>/dev/null; then
  row "$label" "$limit" "skipped: cannot set memory.limit_in_bytes" "" "" "" ""
  exit 0
fi
[ -e "$CG/memory.memsw.limit_in_bytes" ] && echo "$limit" >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null

start=$(date +%s.%N)
# The child joins the group before it execs the command, so every page the
# command touches is charged to the group.
bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' memlimit "$CG" "$@" >/dev/null 2>"$TMPERR" &
pid=$!
hwm=0 anon=0
# Every process of the group (the command may be a shell running heapleak):
# the largest VmHWM, and the group's RssAnon summed. (stderr: bash's own
# "Killed" notice of an OOM-killed command; the row says it.)
{
while kill -0 "$pid" 2>/dev/null; do
  procs=$(sed 's|.*|/proc/&/status|' "$CG/cgroup.procs" 2>/dev/null)
  if [ -n "$procs" ] && read -r h a < <(awk '/^VmHWM:/ { if ($2 > h) h = $2 } /^RssAnon:/ { a += $2 }
      END { print h + 0, a + 0 }' $procs 2>/dev/null); then
    [ "$h" -gt "$hwm" ] && hwm=$h
    [ "$a" -gt "$anon" ] && anon=$a
  fi
  sleep 0.05
done
wait "$pid"
} 2>/dev/null
rc=$?
end=$(date +%s.%N)
max=$(cat "$CG/memory.max_usage_in_bytes")
ooms=$(awk '/^oom_kill / { print $2 }' "$CG/memory.oom_control" 2>/dev/null)
if [ "$rc" -eq 0 ]; then
  done_word=yes
elif [ "${ooms:-0}" -gt 0 ] || [ "$rc" -eq 137 ]; then
  done_word=OOM
else
  done_word="exit $rc"
fi
row "$label" "$limit" "$done_word" "$((max >> 20))" "$((hwm >> 10))" "$((anon >> 10))" \
  "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')"
[ "$rc" -eq 0 ] || [ "$done_word" = OOM ] || sed 's/^/    /' "$TMPERR" | tail -n 3
exit 0
