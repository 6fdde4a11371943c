"""`vlkb verify`: each repro fails before and passes after, and vlkb diagnoses its own "before" log as
the entry (the closed loop). CPU here; the GPU path runs where a GPU is present."""
import dataclasses
import json

import pytest
from click.testing import CliRunner

from vlkb.cli import cli
from vlkb.kb import load
from vlkb.verify import catalog

torch = pytest.importorskip("torch", reason="vlkb verify needs the verify extra (torch)")


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    # two at a time, as a 2-core CI machine allows: the report keeps the entries' order
    result = CliRunner().invoke(cli, ["verify", "--all", "--device", "cpu", "--format", "json",
                                      "--logs", str(home), "--jobs", "2"])
    return result.exit_code, {v["entry"]: v for v in json.loads(result.output)}


def test_every_entry_with_a_repro_is_reproduced_and_fixed(verdicts):
    code, by_entry = verdicts
    expected = [e.id for e in load() if e.verify.get("repro") in catalog.REPROS]
    assert list(by_entry) == expected and len(expected) >= 2
    for v in by_entry.values():
        assert v["before"]["exit_code"] not in (0, None), v
        if v["closed_loop"] is None:  # a mechanism-only repro says so
            assert v["mechanism_only"] and v["entry"] == "colossalai-gemini-grad-chunk-none"
        else:
            assert v["closed_loop"] and v["before"]["diagnosis"] == v["family"], v
        assert v["after"]["exit_code"] == 0 and v["after"]["diagnosis"] != v["family"], v
        assert v["ok"] and v["before"]["env"]["torch"] == torch.__version__ and v["device"] == "cpu"
    assert code == 0


def test_the_logs_are_kept_for_the_user(verdicts):
    _, by_entry = verdicts
    for v in by_entry.values():
        text = open(v["before"]["log"], encoding="utf-8").read()
        assert "vlkb-verify-env" in text and len(text.splitlines()) > 1


def test_every_repro_named_by_the_kb_is_shipped_or_listed_as_missing():
    named = {e.verify["repro"] for e in load() if "repro" in e.verify}
    assert set(catalog.REPROS) <= named


def test_without_the_extra_one_line_says_how_to_install(monkeypatch):
    fake = {k: dataclasses.replace(r, needs=("no_such_module_vlkb",)) for k, r in catalog.REPROS.items()}
    monkeypatch.setattr(catalog, "REPROS", fake)
    result = CliRunner().invoke(cli, ["verify", "--all"])
    assert result.exit_code == 2
    assert "needs no_such_module_vlkb" in result.output and "vlkb[verify]" in result.output


def test_unknown_entry_and_list(run_vlkb):
    code, _, err = run_vlkb("verify", "no-such-entry")
    assert code == 2 and "vlkb verify --list" in err
    code, out, _ = run_vlkb("verify", "--list", "--format", "json")
    assert code == 0 and {r["entry"] for r in json.loads(out)} >= {"tensor-does-not-require-grad"}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_gpu_path(tmp_path):
    result = CliRunner().invoke(cli, ["verify", "--all", "--device", "cuda", "--format", "json", "--logs", str(tmp_path)])
    assert result.exit_code == 0, result.output


def test_stream_writes_the_repro_output_live_and_keeps_the_report_on_stdout(run_vlkb, tmp_path):
    code, out, err = run_vlkb("verify", "loss-nan", "--device", "cpu", "--stream", "--format", "json",
                              "--logs", str(tmp_path))
    assert code == 0, err
    assert json.loads(out)[0]["ok"]
    lines = err.splitlines()
    assert lines[0].startswith("== loss-nan: before (")
    assert any(line.startswith("[before] ") for line in lines) and any(line.startswith("[after] ") for line in lines)
    assert any(line.startswith("== loss-nan: before exit 1 in ") for line in lines)
    assert lines[-1].startswith("== loss-nan: after exit 0 in ")
    before_log = (tmp_path / "loss-nan" / "before.log").read_text(encoding="utf-8")
    streamed = [line[len("[before] "):] for line in lines if line.startswith("[before] ")]
    assert streamed == before_log.splitlines()  # the panel shows exactly what the kept log holds


def _repro_pids() -> set[int]:
    import os

    pids = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"vlkb.verify.repros." in f.read():
                    pids.add(int(pid))
        except OSError:
            continue
    return pids


@pytest.mark.skipif(not __import__("os").path.isdir("/proc"), reason="needs /proc to find the repro processes")
def test_sigterm_stops_verify_and_the_repros_it_runs(tmp_path):
    """What the TUI's cancel key does: SIGTERM to `vlkb verify` takes its repros' process groups down,
    each of those running side by side with --jobs, and starts no other."""
    import os
    import signal
    import subprocess
    import sys

    before = _repro_pids()
    entries = ("ddp-mark-variable-ready-twice", "zero-grad-reduced-twice", "loss-nan")  # the slow two first
    proc = subprocess.Popen([sys.executable, "-m", "vlkb", "verify", *entries, "--jobs", "2", "--stream",
                             "--device", "cpu", "--logs", str(tmp_path)], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)
    talking = set()
    for raw in proc.stderr:  # wait until both repros run and talk, each line prefixed by its entry
        who, _, rest = raw.decode().partition(" ")
        if rest.startswith("[before] "):
            talking.add(who.strip("[]"))
        if talking == set(entries[:2]):
            break
    assert len(_repro_pids() - before) >= 2, "both repros should be running now"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    proc.stderr.close()
    for _ in range(50):
        if not _repro_pids() - before:
            break
        __import__("time").sleep(0.1)
    assert not _repro_pids() - before, "the repros and their workers must be gone"
    assert not (tmp_path / "loss-nan").exists(), "no repro starts once stopped"
    assert os.path.exists(tmp_path / "ddp-mark-variable-ready-twice" / "before.log")
