"""Similar public reports (vlkb/reports.py, report_index.py, report_records.py, analyzer/similar.py):
the index builds from raw records, finds a report from a log that states the same failure with other
numbers, paths and ranks, and never returns one whose deciding token differs. The records in
tests/data/reports/ are verbatim copies of shipped ones (data/reports/), so these tests do not move
when the shipped set grows."""
from __future__ import annotations

import json
from dataclasses import replace
import sqlite3
from pathlib import Path

import pytest

from vlkb import report_index, report_records, reports
from vlkb.kb import fixtures as fx
from vlkb.analyzer.signature import Signature, signature, text_signature
from vlkb.analyzer.similar import compare

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "tests" / "data" / "reports"
KB = ROOT / "kb" / "entries"


@pytest.fixture(scope="module")
def index(engine, tmp_path_factory):
    mp = pytest.MonkeyPatch()
    home = tmp_path_factory.mktemp("home")
    mp.setenv("VLKB_HOME", str(home))
    mp.setattr(report_records, "shipped_dir", lambda: RECORDS)
    path = report_index.ensure(engine)
    yield report_index.Index(path)
    mp.undo()


def search(engine, index, log: Path, k: int = 5, tmp: Path | None = None):
    """Search with a log; a KB fixture is read without its markers, and its own report is left out."""
    own = frozenset()
    if log.suffix == ".log" and log.is_relative_to(KB):
        f = fx.parse(log)
        own = frozenset({report_records.report_key(f.source)})
        log = tmp / log.name
        log.write_text(f.text, encoding="utf-8")
    sig = reports.query(engine.diagnose([str(log)]))
    assert sig is not None, f"{log}: no signature to search with"
    return index.search(sig, k, own)


def test_the_index_holds_every_record_and_fixture(engine, index):
    n_records = sum(1 for line in (RECORDS / "records.jsonl").read_text().splitlines() if line.strip())
    rows = dict(index.db.execute("select origin, count(*) from reports group by origin"))
    assert rows["public"] == n_records
    assert rows["kb"] > 1000  # the fixtures: public reports of the entries they prove
    assert index.db.execute("select count(*) from reports_fts").fetchone()[0] == sum(rows.values())
    assert index.idf  # the reports' own idf, for TF-IDF and the candidate query


def test_a_log_finds_the_report_of_its_failure_with_other_numbers_paths_and_ranks(engine, index, tmp_path):
    # mbridge#48: "The size of tensor a (20480) must match the size of tensor b (4244) at
    # non-singleton dimension 0" in a verl log; the records state it with 40/80 under [rank1]: and 768/3072
    found = search(engine, index, KB / "tensor-size-mismatch" / "tensor-size-mismatch.pos-verl-qwen3vl-mbridge-rope.log",
                   tmp=tmp_path)
    urls = [f.url for f in found]
    assert {"https://github.com/huggingface/transformers/issues/39804",
            "https://github.com/deepspeedai/DeepSpeedExamples/issues/643"} & set(urls), urls
    top = next(f for f in found if f.url.endswith(("/39804", "/643")))
    assert "tensor" in top.likeness.shared_words and top.likeness.score >= 0.5


def test_a_different_exit_signal_is_never_similar(engine, index, tmp_path):
    # torchrun's "failed (exitcode: -8)" (SIGFPE, Open-Sora#826) against the same line with -9 (a host
    # OOM kill) in other reports: the same canonical words, another failure
    f = fx.parse(KB / "signal-sigfpe" / "signal-sigfpe.pos-opensora-glog-launcher.log")
    log = tmp_path / "opensora.log"
    log.write_text(f.text, encoding="utf-8")
    sig = reports.query(engine.diagnose([str(log)]))
    same_words = index.db.execute("select count(*) from reports where entry = 'host-oom-sigkill' and text = ?",
                                  [sig.text]).fetchone()[0]
    assert same_words >= 1  # a -9 report says exactly these words
    found = index.search(sig, 50, floor=0.0)
    # its own report leads (with any other SIGFPE report of the same words, R1-V's), not left out here
    best = [x for x in found if x.likeness.score == 1.0]
    assert f.source in [x.url for x in best] and {x.entry for x in best} == {"signal-sigfpe"}
    assert not [x.url for x in found if x.entry in ("host-oom-sigkill", "signal-sigbus")]


def test_a_different_quoted_name_is_never_similar():
    # the same words, another attribute or module: another failure (trl#1823 against LlamaFactory#6228)
    frame = ("trainer.py:training_step",)  # the message is generic: only a frame in common makes it comparable
    dtype = replace(text_signature("AttributeError: \u2018NoneType\u2018 object has no attribute \u2018dtype\u2018"), frames=frame)
    device = replace(text_signature("AttributeError: 'NoneType' object has no attribute 'device'"), frames=frame)
    same = replace(text_signature("AttributeError: 'NoneType' object has no attribute 'dtype'"), frames=frame)
    idf = {}
    assert compare(dtype, {"x": 1.0}, device, {"x": 1.0}, idf) is None
    assert compare(dtype, {"x": 1.0}, same, {"x": 1.0}, idf) is not None
    flash = text_signature("ModuleNotFoundError: No module named 'flash_attn'")
    apex = text_signature("ModuleNotFoundError: No module named 'fused_layer_norm_cuda'")
    assert compare(flash, {"x": 1.0}, apex, {"x": 1.0}, idf) is None


def test_the_named_module_finds_its_reports_and_not_another_modules(engine, index, tmp_path):
    log = tmp_path / "train.log"  # apex#156's error, as its reporter pasted it
    log.write_text("ModuleNotFoundError: No module named 'fused_layer_norm_cuda'\n")
    found = search(engine, index, log, k=10)
    urls = [f.url for f in found]
    assert "https://github.com/NVIDIA/apex/issues/499" in urls and "https://github.com/NVIDIA/apex/issues/1755" in urls
    assert "https://github.com/jzhang38/TinyLlama/issues/168" not in urls
    fix = next(f for f in found if f.url.endswith("/499"))
    assert fix.resolution.startswith("fixed by Build apex")


def test_a_generic_message_needs_a_frame_in_common():
    # "list index out of range" is said by thousands of different failures
    a = Signature("IndexError", "indexerror: list index out of range", ("collator.py:__call__",), {})
    b = Signature("IndexError", "indexerror: list index out of range", ("loader.py:_load",), {})
    c = Signature("IndexError", "indexerror: list index out of range", ("collator.py:__call__",), {})
    vec = {"list": 0.5, "index": 0.5, "range": 0.7}
    assert compare(a, vec, b, vec, {}) is None
    assert compare(a, vec, c, vec, {}).score > 0.9


def test_a_launchers_report_of_a_childs_exit_is_not_searched(engine, tmp_path):
    log = tmp_path / "torchrun.log"  # the cascade alone (LlamaFactory#9656's excerpt): the failure is not in it
    log.write_text("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                   "============================================================\n"
                   "/root/autodl-tmp/LLaMA-Factory-main/src/llamafactory/launcher.py FAILED\n")
    assert reports.query(engine.diagnose([str(log)])) is None


def test_the_index_is_rebuilt_when_a_record_changes_and_only_then(engine, tmp_path, monkeypatch):
    records = tmp_path / "records"
    records.mkdir()
    (records / "a.jsonl").write_text((RECORDS / "records.jsonl").read_text().splitlines()[0] + "\n")
    monkeypatch.setattr(report_records, "shipped_dir", lambda: records)
    monkeypatch.setenv("VLKB_HOME", str(tmp_path / "home"))
    path = report_index.ensure(engine)
    built = path.stat().st_mtime_ns
    assert report_index.ensure(engine).stat().st_mtime_ns == built
    with open(records / "a.jsonl", "a") as f:
        f.write((RECORDS / "records.jsonl").read_text().splitlines()[1] + "\n")
    assert report_index.counts(report_index.ensure(engine))["public"] == 2


def test_bad_records_are_skipped_with_a_note_and_text_is_made_inert(engine, tmp_path, monkeypatch):
    records = tmp_path / "records"
    records.mkdir()
    good = json.loads((RECORDS / "records.jsonl").read_text().splitlines()[0])
    hostile = dict(good, url="https://github.com/o/r/issues/1",
                   title="\x1b]8;;https://evil\x07click\x1b]8;;\x07 \u202etxt.exe", fix={"kind": "fix", "text": "\x1b[2Jwiped"})
    (records / "a.jsonl").write_text("\n".join([
        json.dumps(good), "not json", json.dumps([1, 2]), json.dumps(dict(good, url="javascript:alert(1)")),
        json.dumps(dict(good, fix={"kind": "rm -rf"})), json.dumps(hostile),
        "x" * (report_records.MAX_RECORD + 1)]) + "\n")
    monkeypatch.setattr(report_records, "shipped_dir", lambda: records)
    monkeypatch.setenv("VLKB_HOME", str(tmp_path / "home"))
    notes: list[str] = []
    got = report_records.read_records(notes)
    assert [r.url for r in got] == [good["url"], "https://github.com/o/r/issues/1"]
    assert len(notes) == 5 and all(n.startswith("a.jsonl:") for n in notes)
    title, fix = got[1].title, got[1].fix_text
    assert "\x1b" not in title + fix and "\x07" not in title and "\u202e" not in title
    with sqlite3.connect(report_index.ensure(engine)) as db:
        assert db.execute("select count(*) from reports where origin = 'public'").fetchone()[0] == 2


def test_signature_masks_numbers_paths_and_ranks(engine):
    from vlkb.analyzer.similar import Reader

    reader = Reader(engine.trigger, engine.signature)
    a = signature(reader.root("[rank1]: RuntimeError: The size of tensor a (40) must match the size of tensor b (80) "
                              "at non-singleton dimension 2"))
    b = signature(reader.root("RuntimeError: The size of tensor a (20480) must match the size of tensor b (4244) "
                              "at non-singleton dimension 0"))
    assert a.text == b.text and a.exception == b.exception == "RuntimeError"


UNKNOWN = ROOT / "kb" / "unknown" / "torch-restore-location-mps.log"  # dddd_trainer#32, a failure no entry names
UNKNOWN_URL = "https://github.com/sml2h3/dddd_trainer/issues/32"


def test_a_report_added_by_the_user_is_shown_for_the_failure_in_every_format(run_vlkb, tmp_path):
    env = {"VLKB_HOME": str(tmp_path / "home")}
    code, out, err = run_vlkb("reports", "add", UNKNOWN_URL, "--log", str(UNKNOWN), "--title", "restore mps checkpoint",
                              "--fix", "load with map_location='cpu'", env=env)
    assert code == 0, err
    rec = json.loads(out[:out.rindex("}") + 1])
    assert rec["error"].startswith("RuntimeError: don't know how to restore data location") and rec["fix"]["kind"] == "fix"
    assert (tmp_path / "home" / "reports" / "added.jsonl").read_text().count("\n") == 1

    code, out, _ = run_vlkb("diagnose", str(UNKNOWN), "--format", "json", "--no-history", env=env)
    doc = json.loads(out)
    assert doc["verdict"] == "unknown"
    top = doc["similar"][0]
    assert top["url"] == UNKNOWN_URL and top["origin"] == "user" and top["score"] == 1.0
    assert top["title"] == "restore mps checkpoint" and top["resolution"]["text"] == "load with map_location='cpu'"

    code, out, _ = run_vlkb("diagnose", str(UNKNOWN), "--no-history", env=env)
    assert "Similar public reports" in out and UNKNOWN_URL in out and "fixed by load with map_location" in out
    code, out, _ = run_vlkb("diagnose", str(UNKNOWN), "--format", "markdown", "--no-history", env=env)
    assert "**Similar public reports**" in out and f"(<{UNKNOWN_URL}>)" in out
    code, out, _ = run_vlkb("diagnose", str(UNKNOWN), "--format", "sarif", "--no-history", env=env)
    assert json.loads(out)["runs"][0]["results"][0]["properties"]["similarReports"][0]["url"] == UNKNOWN_URL
    code, out, _ = run_vlkb("diagnose", str(UNKNOWN), "--format", "json", "--no-history", "--no-similar", env=env)
    assert json.loads(out)["similar"] == []


def test_a_known_failure_shows_similar_reports_only_when_asked(run_vlkb, tmp_path):
    sample = ROOT / "data" / "samples" / "ms-swift-minicpmv-dpo-zero2.log"
    env = {"VLKB_HOME": str(tmp_path / "home")}
    code, out, _ = run_vlkb("diagnose", str(sample), "--format", "json", "--no-history", env=env)
    assert json.loads(out)["verdict"] == "known" and json.loads(out)["similar"] == []
    assert not (tmp_path / "home" / report_index.DB_NAME).exists()  # a known root never opens the index
    code, out, _ = run_vlkb("diagnose", str(sample), "--format", "json", "--no-history", "--similar", env=env)
    assert (tmp_path / "home" / report_index.DB_NAME).exists()
    similar = json.loads(out)["similar"]
    assert similar and all(s["score"] >= 0.5 for s in similar)


def test_kb_new_from_reports_scaffolds_an_entry_with_each_report_as_a_fixture(run_vlkb, tmp_path):
    env = {"VLKB_HOME": str(tmp_path / "home")}
    log = tmp_path / "restore.log"
    log.write_text(fx.parse(UNKNOWN).text, encoding="utf-8")
    second = "https://github.com/example/other/issues/7"  # the same log filed twice: two reports of one failure
    for url in (UNKNOWN_URL, second):
        assert run_vlkb("reports", "add", url, "--log", str(log), env=env)[0] == 0
    code, out, _ = run_vlkb("reports", "candidates", "--min", "2", "--limit", "1000", "--format", "json", env=env)
    groups = json.loads(out)
    assert any({UNKNOWN_URL, second} <= set(g["urls"]) for g in groups)
    dest = tmp_path / "kb-local"
    code, out, err = run_vlkb("kb", "new", "restore-location", "--from-report", UNKNOWN_URL, "--from-report", second,
                              "--dir", str(dest), env=env)
    assert code == 0, err
    folder = dest / "restore-location"
    fixtures = sorted(p.name for p in folder.glob("*.log"))
    assert len(fixtures) == 2
    assert all(fx.parse(p).match_line for p in folder.glob("*.log"))
    assert UNKNOWN_URL in (folder / "restore-location.yaml").read_text()
    code, _, err = run_vlkb("kb", "new", "x", "--from-report", "https://github.com/none/none/issues/1",
                            "--dir", str(dest), env=env)
    assert code == 2 and "no record of" in err


def test_reports_add_imports_a_file_of_records_and_skips_bad_lines(run_vlkb, tmp_path):
    env = {"VLKB_HOME": str(tmp_path / "home")}
    src = tmp_path / "team.jsonl"
    src.write_text((RECORDS / "records.jsonl").read_text().splitlines()[0] + "\n{not json\n", encoding="utf-8")
    code, out, err = run_vlkb("reports", "add", str(src), env=env)
    assert code == 0 and "added 1 records" in out and "team.jsonl:2: skipped" in err
    assert (tmp_path / "home" / "reports" / "added.jsonl").read_text().count("\n") == 1
    code, _, err = run_vlkb("reports", "add", "https://github.com/o/r/issues/1", env=env)
    assert code == 2 and "needs --log" in err
