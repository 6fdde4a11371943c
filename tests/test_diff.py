"""`vlkb diff HEALTHY FAILED`: the line templates a failed run printed and a healthy run of the same job
never did, first appearance first, with the root failure's template marked."""
from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from vlkb import diff as differ
from vlkb.kb import fixtures as fx

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "data" / "corpus" / "healthy"
KB = ROOT / "kb" / "entries"


def _rotated(text: str) -> str:
    """The same run with other numbers: every digit moved on by 3 (steps, losses, norms, times)."""
    return re.sub(r"\d", lambda m: str((int(m.group()) + 3) % 10), text)


def _error_lines() -> list[str]:
    """A real traceback's last lines, from a KB fixture (never an invented message)."""
    fixture = fx.parse(KB / "shape-mismatch" / "shape-mismatch.pos-bgrl-cross-entropy-expected-target-size.log")
    lines = fixture.text.splitlines()
    return lines[max(0, fixture.match_line - 4):fixture.match_line]


def test_the_injected_failure_is_the_first_new_template_and_renumbered_lines_are_not_new(tmp_path):
    healthy = (HEALTHY / "torchrun-ddp-tee.log").read_text()
    lines = _rotated(healthy).splitlines()
    injected = _error_lines()
    failed = tmp_path / "failed.log"
    failed.write_text("\n".join(lines[:300] + [f"[default1]:{x}" for x in injected] + lines[300:]) + "\n")
    (tmp_path / "healthy.log").write_text(healthy)

    result = differ.compare([str(tmp_path / "healthy.log")], [str(failed)])
    assert result.failed.lines == len(lines) + len(injected)
    assert [s.lineno for s in result.new] == [301 + i for i in range(len(injected))
                                             if differ.template(injected[i])]
    assert len(result.new) == 4 and result.new[0].text == injected[0].strip()
    assert result.new[-1].text == "RuntimeError: Expected target size [1, 6], got [1, 3327]"
    assert all(s.count == 1 for s in result.new)


def test_the_cli_marks_the_first_and_the_root_and_exits_as_diff_does(run_vlkb, tmp_path):
    fixture = fx.parse(KB / "ddp-mark-variable-ready-twice" / "ddp-mark-variable-ready-twice.pos-verify-ddp-reentrant-qwen2vl.log")
    failed = tmp_path / "failed.log"  # the repro's run before its fix; the healthy log is the same repro after it
    failed.write_text(fixture.text)
    healthy = HEALTHY / "verify-ddp-reentrant-qwen2vl.log"
    code, out, err = run_vlkb("diff", str(healthy), str(failed), "--format", "json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["schema"] == "vlkb.diff/1" and doc["new"][0]["first"]
    # the configuration line that differs (use_reentrant true, not false) comes first
    assert '"use_reentrant": true' in doc["new"][0]["text"] and doc["new"][0]["line"] == 1
    root = doc["new"][doc["root_index"]]
    assert root["root"] and root["text"].startswith("RuntimeError: Expected to mark a variable ready only once")
    assert not any(n["text"].strip("^ ") == "" for n in doc["new"])  # caret lines tell nothing
    code, out, _ = run_vlkb("diff", str(healthy), str(healthy))
    assert code == 0 and out.startswith("0 line templates")
    code, out, _ = run_vlkb("diff", str(healthy), str(failed), "--limit", "2", "--no-root")
    assert code == 1 and out.count("\n") < 12 and "more (--limit)" in out and "first" in out


def test_inputs_are_read_as_diagnose_reads_them_and_output_is_inert(run_vlkb, tmp_path):
    healthy = tmp_path / "ok.log.gz"
    healthy.write_bytes(gzip.compress(b"step 1 loss 2.0\nstep 2 loss 1.9\n"))
    failed = tmp_path / "bad.log"
    failed.write_bytes("step 7 loss 1.5\n\x1b]0;pwned\x07evil \u202egnp.exe\n".encode("utf-16"))
    code, out, err = run_vlkb("diff", str(healthy), str(failed))
    assert code == 1, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out and "evil gnp.exe" in out
    assert "loss" not in out.split("\n\n", 1)[1].split("note:")[0]  # step 7's loss line is the healthy template
    code, _, err = run_vlkb("diff", str(tmp_path / "missing.log"), str(failed))
    assert code == 2 and "no such file" in err
    code, _, err = run_vlkb("diff", "-", "-")
    assert code == 2 and "only one" in err


def test_memory_is_bounded_by_the_template_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(differ, "MAX_TEMPLATES", 50)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    healthy = tmp_path / "h.log"
    healthy.write_text("".join(f"{a} {b} {c}\n" for a in words for b in words for c in words[:2]))
    result = differ.compare([str(healthy)], [str(healthy)])
    assert len(result.healthy.templates) == 50 and result.healthy.full
    assert any("not kept" in n for n in result.notes)
