"""json_runs.py - one command's JSON answer, for the scripts that compare
`heapleak` with heapleakd (daemon_moved.py, streamed_as_held.py)."""
import json
import shutil
import subprocess
import sys


def run_json(argv, env, fails, timeout=120):
    """The JSON `argv` prints; None, with a line in `fails`, when it exits non-zero."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        fails.append(f"{' '.join(argv[:3])} exited {proc.returncode}: {proc.stderr.strip()}")
        return None
    return json.loads(proc.stdout)


def stop_and_report(client, socket, env, fails, tmp):
    """Stops the daemon on `socket`, removes `tmp` (the socket's folder),
    prints each failure and exits, 1 if any."""
    subprocess.run([client, "--socket", socket, "stop"], capture_output=True, timeout=60, env=env)
    shutil.rmtree(tmp, ignore_errors=True)
    for line in fails:
        print("FAIL", line)
    sys.exit(1 if fails else 0)
