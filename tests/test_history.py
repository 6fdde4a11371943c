"""The history of diagnoses: new vs seen before, stable fingerprints, `vlkb history`, and several
processes writing one database at once (CI jobs sharing a cache)."""
import json
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone

from vlkb import history

from conftest import SAMPLES

SAMPLE = str(SAMPLES / "ms-swift-minicpmv-dpo-zero2.log")


def test_new_then_seen_with_dates(engine, tmp_path):
    db = tmp_path / "h.db"
    d = engine.diagnose([SAMPLE])
    t0 = datetime(2026, 11, 2, 9, 30, tzinfo=timezone.utc)
    first = history.record(db, d, now=t0)
    assert first.count == 0 and first.describe() == "new: not seen before"
    history.record(db, d, now=t0 + timedelta(days=1))
    third = history.record(db, d, now=t0 + timedelta(days=3))
    assert third.count == 2 and third.first.startswith("2026-11-02") and third.last.startswith("2026-11-03")
    assert third.describe() == ("seen 2 times since 2026-11-02 (last: 2026-11-03 09:30 UTC, "
                                "ms-swift-minicpmv-dpo-zero2.log)")


def test_a_clean_run_is_recorded_without_a_fingerprint(engine, tmp_path):
    log = tmp_path / "ok.log"
    log.write_text("step 1 loss 2.0\nstep 2 loss 1.9\n")
    assert history.record(tmp_path / "h.db", engine.diagnose([str(log)])) is None
    rows = sqlite3.connect(tmp_path / "h.db").execute("select verdict, fingerprint from diagnoses").fetchall()
    assert rows == [("clean", None)]


def test_cli_says_seen_before_and_history_lists_it(run_vlkb, tmp_path):
    db = str(tmp_path / "ci-cache" / "history.db")
    run_vlkb("diagnose", SAMPLE, "--history", db)
    code, md, _ = run_vlkb("diagnose", SAMPLE, "--history", db, "--format", "markdown")
    assert "**Seen before:** seen once since" in md
    _, out, _ = run_vlkb("diagnose", SAMPLE, "--history", db, "--format", "json")
    assert json.loads(out)["seen"]["count"] == 2
    code, out, _ = run_vlkb("history", "--history", db, "--format", "json")
    d = json.loads(out)
    assert code == 0 and len(d["recent"]) == 3 and d["frequent"][0]["times"] == 3
    assert d["frequent"][0]["entry"] == "zero-grad-reduced-twice"
    code, out, _ = run_vlkb("history", "--history", db)
    assert code == 0 and "3x  zero-grad-reduced-twice" in out


def test_history_on_a_fresh_home_is_an_answer_not_an_error(run_vlkb, tmp_path):
    db = tmp_path / "never-written" / "history.db"
    code, out, err = run_vlkb("history", "--history", str(db))
    assert code == 0 and "No history yet" in out and not err and not db.exists()
    code, out, _ = run_vlkb("history", "--history", str(db), "--format", "json")
    assert code == 0 and json.loads(out)["recent"] == [] and json.loads(out)["frequent"] == []


def test_no_history_neither_reads_nor_writes(run_vlkb, tmp_path):
    db = tmp_path / "h.db"
    _, out, _ = run_vlkb("diagnose", SAMPLE, "--history", str(db), "--no-history", "--format", "json")
    assert json.loads(out)["seen"] is None and not db.exists()


def test_an_unwritable_history_costs_a_note_not_the_diagnosis(run_vlkb, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, out, _ = run_vlkb("diagnose", SAMPLE, "--history", str(blocker / "h.db"), "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["verdict"] == "known" and any("history not recorded" in n for n in d["notes"])


WRITER = """
import sys
from vlkb.kb import load_engine
from vlkb import history
engine = load_engine()
d = engine.diagnose([sys.argv[2]])
for _ in range(int(sys.argv[3])):
    history.record(__import__("pathlib").Path(sys.argv[1]), d)
"""


def test_concurrent_writers_never_corrupt_or_lose_a_row(tmp_path):
    db, procs, each = tmp_path / "shared.db", 6, 25
    workers = [subprocess.Popen([sys.executable, "-c", WRITER, str(db), SAMPLE, str(each)]) for _ in range(procs)]
    assert all(w.wait(timeout=300) == 0 for w in workers)
    conn = sqlite3.connect(db)
    assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert conn.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert conn.execute("select count(*), count(distinct fingerprint) from diagnoses").fetchone() == (procs * each, 1)
