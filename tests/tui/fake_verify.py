"""A stand-in for `vlkb verify ID --stream --format json` in the TUI tests: the same protocol (progress
on stderr as it comes, the JSON report on stdout at the end), in a fraction of a second. The real
repros are tested in tests/test_verify.py.

usage: fake_verify.py ENTRY GATE   prints, waits for the file GATE to exist, then finishes
       fake_verify.py ENTRY hang   prints, then sleeps until killed
"""
import json
import sys
import time
from pathlib import Path

entry, gate = sys.argv[1], sys.argv[2]
say = lambda text: print(text, file=sys.stderr, flush=True)  # noqa: E731
say(f"== {entry}: before (fake repro) on cpu")
say("[before] RuntimeError: Expected to mark a variable ready only once. [bold]not markup[/] \x1b[31mred\x1b[0m")
if gate == "hang":
    time.sleep(600)
deadline = time.monotonic() + 30
while not Path(gate).exists() and time.monotonic() < deadline:
    time.sleep(0.02)
say(f"== {entry}: before exit 1 in 0.1 s; vlkb names {entry} (1.00)")
say(f"== {entry}: after exit 0 in 0.1 s; vlkb names no entry")
run = lambda code, diagnosis: {"exit_code": code, "timed_out": False, "seconds": 0.1,  # noqa: E731
                               "log": f"/verify-logs/{entry}/{'before' if code else 'after'}.log",
                               "diagnosis": diagnosis, "confidence": 1.0 if diagnosis else 0.0, "env": {}}
print(json.dumps([{"entry": entry, "family": entry, "repro": "fake", "device": "cpu", "reproduced": True,
                   "closed_loop": True, "fixed": True, "ok": True, "mechanism_only": None,
                   "before": run(1, entry), "after": run(0, None)}]))
