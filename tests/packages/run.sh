#!/usr/bin/env bash
# tests/packages/run.sh BUILD_DIR install|remove|check: the release packages
# as a user gets them.
#   install  builds the .deb and the .tar.gz from BUILD_DIR (cpack) and the
#            gem (gem build), installs the .deb (dpkg -i) and checks every
#            package: the installed `heapleak --version` matches the package,
#            the installed `heapleak explain` names the leak of a generated
#            series, the unpacked .tar.gz runs from any folder (its bundled
#            libraries), and the gem installed with `gem install --local`
#            takes a dump of a process through its installed command.
#   remove   dpkg -r, and checks nothing of heapleak is left in /usr/bin.
# scripts/test.sh runs `install`, the VS Code tests against the installed
# /usr/bin/heapleakd (the .vsix installed into code-server), then `remove`.
set -euo pipefail
build=$(realpath "$1") action=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=$build/packages
work=$build/packages-test
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

if [ "$action" = remove ]; then
  dpkg -r heapleak >/dev/null
  for binary in heapleak heapleakd heapleak-client; do
    [ ! -e "/usr/bin/$binary" ] || fail "/usr/bin/$binary is left after dpkg -r"
  done
  ok "dpkg -r heapleak removed the three binaries"
  echo "1 passed, 0 failed"
  exit 0
fi
[ "$action" = install ] || { echo "usage: $0 BUILD_DIR install|remove" >&2; exit 2; }

rm -rf "$out" "$work"
mkdir -p "$out" "$work"
(cd "$build" && cpack -G DEB -B "$out" >/dev/null 2>&1 && cpack -G TGZ -B "$out" >/dev/null 2>&1)
deb=$(ls "$out"/heapleak_*_amd64.deb)
tgz=$(ls "$out"/heapleak-*-linux-x86_64.tar.gz)
version=$(dpkg-deb -f "$deb" Version)
ok "built $(basename "$deb") and $(basename "$tgz")"

dpkg -i "$deb" >/dev/null
[ "$(/usr/bin/heapleak --version)" = "heapleak $version" ] || fail "heapleak --version says '$(/usr/bin/heapleak --version)', the package $version"
ok "the installed heapleak --version matches the package ($version)"

ruby "$repo/tests/gen/leakgen.rb" class_cache small "$work/series" >/dev/null 2>&1
answer=$(/usr/bin/heapleak explain --json "$work"/series/{A,B,C}.json --no-cache)
echo "$answer" | ruby -rjson -e 'row = JSON.parse($stdin.read)["leaks"].first; exit(row && row.dig("reach", "name").to_s.include?("UserCache") ? 0 : 1)' \
  || fail "the installed heapleak explain did not put UserCache's cache first"
ok "the installed heapleak explain names UserCache's cache first"

mkdir -p "$work/tgz"
tar xzf "$tgz" -C "$work/tgz"
unpacked=$(ls -d "$work"/tgz/heapleak-*)
(cd / && env -u LD_LIBRARY_PATH "$unpacked/bin/heapleak" info --no-cache "$work/series/B.json" >/dev/null) \
  || fail "the unpacked .tar.gz heapleak does not run"
# grep reads all of ldd's output: `grep -q` would stop at the match, and ldd,
# still writing, die of SIGPIPE, which pipefail reports as this check failing.
ldd "$unpacked/bin/heapleakd" | grep "$unpacked/bin/../lib/libboost_json" >/dev/null || fail "heapleakd does not take the bundled Boost.JSON"
ok "the unpacked .tar.gz runs with its bundled libraries"

gem_dir=$work/gem
(cd "$repo/clients/ruby" && gem build heapleak-capture.gemspec -o "$out/heapleak-capture.gem" >/dev/null)
gem install --local --no-document --install-dir "$gem_dir" "$out/heapleak-capture.gem" >/dev/null
sockets=$work/sockets
mkdir -m 700 "$sockets"
GEM_HOME=$gem_dir GEM_PATH=$gem_dir HEAPLEAK_CAPTURE_DIR=$sockets ruby -e '
  require "heapleak/capture"
  abort "the gem was loaded from the repo" unless $LOADED_FEATURES.grep(/heapleak\/capture\.rb/).first.start_with?(ENV["GEM_HOME"])
  Heapleak::Capture.enable_from_env!
  File.write(ARGV[0], Process.pid.to_s)
  sleep 60' "$work/app.pid" &
app=$!
for _ in $(seq 100); do [ -S "$sockets/heapleak-$app.sock" ] && break; sleep 0.1; done
GEM_HOME=$gem_dir GEM_PATH=$gem_dir "$gem_dir/bin/heapleak-capture" dump "$app" --dir "$sockets" --out "$work/dump" >/dev/null 2>&1 \
  || { kill "$app"; fail "the installed heapleak-capture could not take a dump"; }
kill "$app"
/usr/bin/heapleak info --no-cache "$work/dump/A.json.gz" >/dev/null || fail "the dump the installed gem took does not load"
ok "the gem installed with gem install --local took a dump through its installed command"
echo "4 passed, 0 failed"
