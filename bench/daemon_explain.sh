#!/usr/bin/env bash
# bench/daemon_explain.sh BUILD A B C: `heapleak-client explain A B C` on a
# fresh heapleakd (a socket of its own, nothing loaded, no cache), the daemon
# stopped after. bench/run.sh times this script: /usr/bin/time's peak RSS is
# then the largest of the processes it waited for, the daemon's.
set -euo pipefail
build=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
socket="$dir/d.sock"
"$build/daemon/heapleakd" --listen "unix:$socket" --no-cache --idle-timeout 600 2>"$dir/log" &
daemon=$!
for _ in $(seq 200); do
  [ -S "$socket" ] && break
  sleep 0.05
done
"$build/clients/client/heapleak-client" --socket "$socket" explain "$@" >/dev/null
"$build/clients/client/heapleak-client" --socket "$socket" stop >/dev/null 2>&1 || kill -TERM "$daemon"
wait "$daemon" || { cat "$dir/log" >&2; exit 1; }
