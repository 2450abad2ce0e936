#!/usr/bin/env bash
# deps.sh: install (apt-get, Debian 12) the packages heapleak needs to build,
# test, demo and bench, but only those that are missing. Idempotent: when all
# are present it does nothing (no apt-get update, no root needed).
set -euo pipefail

PACKAGES=(
  build-essential cmake g++ pkg-config
  libboost1.81-dev libboost-json1.81-dev libsimdjson-dev catch2 zlib1g-dev
  ruby graphviz llvm-14-tools python3 time gzip clang-14 libclang-rt-14-dev
  clang-format clang-tidy
  # heapleak check's test validates its SARIF against the official schema
  python3-jsonschema
  # heapleak report's page opened in a real browser (tests/report, playwright-core)
  chromium
  # the leaky applications of tests/apps
  ruby-rack ruby-sinatra ruby-activesupport ruby-concurrent ruby-i18n
  # the README's test hook under RSpec (tests/check/test_parallel_hook.py)
  ruby-rspec
  # the capture gem's tests: minitest, and real Puma, Sidekiq and Redis
  ruby-minitest puma ruby-sidekiq redis-server
  # tests/apps/programs/rails_shop.rb: Rails 6.1 without the `rails` metapackage
  # (it pulls node packages); apt-get install --no-install-recommends is enough
  ruby-railties ruby-activerecord ruby-actionpack ruby-sqlite3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' >/dev/null; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "deps: missing ${missing[*]}; run this script as root (or install sudo)" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
