"""ruby_versions.py - run a Ruby script under every Ruby version CI covers:
Debian's native ruby (3.1) and the CRuby 3.2, 3.3, 3.4 and 4.0 WebAssembly
builds that run-ruby.mjs runs under Node's WASI (installed by `npm ci` in this
folder from the committed lock file). Python 3 standard library only.

  ruby_versions.py setup     npm ci here; fails (never skips) when node 20 or npm is missing

The scripts see host directories through mounts: `run` takes host paths and
rewrites those under a mount to guest paths for the wasm builds, so one call
works for both kinds of interpreter.
"""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = "3.1"  # Debian 12's ruby; the others are wasm32-wasi builds
WASM = ("3.2", "3.3", "3.4", "4.0")
VERSIONS = (NATIVE,) + WASM
RUN_RUBY = os.path.join(HERE, "run-ruby.mjs")
# Node 20 crashes at random once the wasm memory grows unless WASI's fast API
# calls are off (a Node bug); see run-ruby.mjs.
NODE_FLAGS = ("--no-turbo-fast-api-calls",)


class SetupError(Exception):
    pass


def node():
    return os.environ.get("HEAPLEAK_NODE") or shutil.which("node")


def native_ruby():
    return os.environ.get("HEAPLEAK_RUBY") or shutil.which("ruby")


def setup():
    """npm ci in this folder, then prove each wasm Ruby starts and says its version."""
    exe, npm = node(), shutil.which("npm")
    if not exe or not npm:
        raise SetupError("node 20 and npm are required for the Ruby 3.2-4.0 tests (tests/rubies); install Node 20")
    major = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if not re.match(r"v(2\d|[3-9]\d)\.", major):
        raise SetupError(f"node {major} is too old: the Ruby 3.2-4.0 tests need Node 20 or later")
    proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SetupError(f"npm ci in {HERE} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    for version in WASM:
        cmd = command(version, [os.path.join(HERE, "description.rb")], {HERE: "/rubies"}, {})
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        print(f"ruby {version}: {out.stdout.strip() or out.stderr.strip()}")
        if out.returncode != 0 or f"ruby {version}" not in out.stdout:
            raise SetupError(f"the wasm Ruby {version} does not start: {out.stderr.strip()[-1000:]}")


def _guest(path, mounts):
    for host, guest in mounts.items():
        host = os.path.abspath(host)
        if path == host or path.startswith(host + os.sep):
            return guest + path[len(host):]
    return path


def command(version, argv, mounts, env):
    """The argv that runs `ruby ARGV` (host paths) under `version`, with `env`
    (for the native ruby the caller puts `env` in the process environment)."""
    if version == NATIVE:
        return [native_ruby(), *argv]
    if version not in WASM:
        raise ValueError(f"unknown Ruby version {version}; have {', '.join(VERSIONS)}")
    cmd = [node(), *NODE_FLAGS, RUN_RUBY, version]
    for host, guest in mounts.items():
        cmd += ["--mount", f"{os.path.abspath(host)}={guest}"]
    for name, value in env.items():
        cmd += ["--env", f"{name}={value}"]
    return cmd + [_guest(os.path.abspath(a) if os.path.isabs(a) else a, mounts) for a in argv]


def run(version, argv, mounts, env=None, timeout=300, stdout=None):
    """Runs `ruby ARGV` under `version`; raises CalledProcessError on failure.
    An `env` value of None unsets the name (the wasm guests see only `env`)."""
    env = env or {}
    full_env = None
    if version == NATIVE:
        full_env = {k: v for k, v in os.environ.items() if k not in env}
        full_env.update({k: v for k, v in env.items() if v is not None})
    cmd = command(version, argv, mounts, {k: v for k, v in env.items() if v is not None})
    return subprocess.run(cmd, env=full_env, check=True, timeout=timeout, stdout=stdout)


def main(argv):
    if argv != ["setup"]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        setup()
    except (SetupError, subprocess.SubprocessError, OSError) as err:
        print(f"FAIL rubies setup: {err}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
