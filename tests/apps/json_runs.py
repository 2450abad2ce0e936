"""json_runs.py - one command's JSON answer, for the scripts that compare
`heapleak` with heapleakd (daemon_moved.py, streamed_as_held.py)."""
import json
import subprocess


def run_json(argv, env, fails, timeout=120):
    """The JSON `argv` prints; None, with a line in `fails`, when it exits non-zero."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        fails.append(f"{' '.join(argv[:3])} exited {proc.returncode}: {proc.stderr.strip()}")
        return None
    return json.loads(proc.stdout)
