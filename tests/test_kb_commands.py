"""The KB commands: list filters, show, lint, the SQLite/FTS index, scaffolding, generated docs."""
import json
import multiprocessing
import sqlite3

import pytest

from conftest import ROOT, SAMPLES


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("VLKB_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_list_filters_and_json(run_vlkb):
    code, out, _ = run_vlkb("kb", "list", "--tag", "vlm", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and rows and all("vlm" in r["tags"] for r in rows)
    code, out, _ = run_vlkb("kb", "list", "--framework", "deepspeed")
    assert "zero-grad-reduced-twice" in out and "cuda-device-side-assert" not in out
    code, out, _ = run_vlkb("kb", "list", "--family", "loss-nan")
    assert out.split() [0] == "loss-nan" and len(out.splitlines()) == 1
    # names as users spell them: case, spaces, dashes and underscores do not matter (issue 16)
    _, spelled, _ = run_vlkb("kb", "list", "--framework", "LLaMA-Factory")
    _, canonical, _ = run_vlkb("kb", "list", "--framework", "llama-factory")
    assert spelled == canonical and "zero-grad-reduced-twice" in spelled
    _, upper, _ = run_vlkb("kb", "list", "--framework", "DeepSpeed")
    assert "zero-grad-reduced-twice" in upper


def test_show_json_has_fixed_sections(run_vlkb):
    code, out, _ = run_vlkb("kb", "show", "nccl-timeout", "--format", "json")
    e = json.loads(out)
    assert {"symptom", "root_cause", "fix", "sources", "fixtures"} <= set(e) and e["sources"]


def test_search_ranks_with_snippets(run_vlkb, home):
    code, out, _ = run_vlkb("kb", "search", "gradient computed twice", "--format", "json",
                            env={"VLKB_HOME": str(home)})
    rows = json.loads(out)
    assert code == 0 and rows[0]["id"] == "zero-grad-reduced-twice" and "[" in rows[0]["snippet"]
    code, out, _ = run_vlkb("kb", "search", "image tokens", env={"VLKB_HOME": str(home)})
    assert out.splitlines()[0].startswith("image-token-mismatch")
    code, out, _ = run_vlkb("kb", "search", 'quote" OR ( unbalanced', env={"VLKB_HOME": str(home)})
    assert code == 0  # user text never reaches FTS5 syntax


def test_index_holds_the_kb_and_rebuilds_when_it_changes(home, tmp_path):
    from vlkb.kb import load
    from vlkb.kb.search import ensure

    path = ensure()
    db = sqlite3.connect(path)
    assert db.execute("select count(*) from entries").fetchone()[0] == len(load())
    from vlkb.kb.fixtures import discover
    assert db.execute("select count(*) from fixtures").fetchone()[0] == len(discover(load()))
    assert db.execute("select count(*) from tfidf_idf").fetchone()[0] > 100
    stamp = path.stat().st_mtime_ns
    assert ensure() == path and path.stat().st_mtime_ns == stamp  # unchanged KB: no rebuild
    extra = tmp_path / "team"
    extra.mkdir()
    src = ROOT / "kb/entries/loss-nan/loss-nan.yaml"
    (extra / "loss-nan.yaml").write_text(src.read_text().replace("title: ", "title: Team runbook - ", 1))
    ensure([extra])
    db = sqlite3.connect(path)
    assert db.execute("select title from entries where id='loss-nan'").fetchone()[0].startswith("Team runbook")


def _build(home):
    import os
    os.environ["VLKB_HOME"] = home
    from vlkb.kb.search import ensure
    ensure(force=True)


def test_concurrent_builds_leave_a_valid_index(home):
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_build, args=(str(home),)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert all(p.exitcode == 0 for p in procs)
    db = sqlite3.connect(home / "kb.db")
    assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
    assert not list(home.glob("*.tmp"))


def test_scaffold_lint_then_diagnose(run_vlkb, tmp_path):
    log = tmp_path / "train.log"
    log.write_text("step 1 loss 2.1\n"
                   "Traceback (most recent call last):\n"
                   '  File "train.py", line 3, in <module>\n'
                   "    main()\n"
                   "RuntimeError: Tensors must be CUDA and dense\n")
    dest = tmp_path / "team"
    code, out, err = run_vlkb("kb", "new", "sparse-grad-on-nccl", "--from", str(log), "--dir", str(dest))
    assert code == 0, err
    yaml_path = dest / "sparse-grad-on-nccl" / "sparse-grad-on-nccl.yaml"
    fixture = next((dest / "sparse-grad-on-nccl").glob("*.pos-*.log"))
    assert "#=MATCH=#RuntimeError: Tensors must be CUDA and dense" in fixture.read_text()
    code, out, _ = run_vlkb("kb", "lint", "--kb", str(dest))
    assert code == 1 and "still holds a TODO" in out and str(yaml_path) in out
    code, out, _ = run_vlkb("diagnose", str(log), "--kb", str(dest), "--format", "json")
    assert json.loads(out)["matches"][0]["entry"] == "sparse-grad-on-nccl"


def test_lint_is_clean_on_the_shipped_kb(run_vlkb):
    code, out, _ = run_vlkb("kb", "lint", "--strict")
    assert code == 0 and out.strip().endswith("0 errors, 0 warnings")


def test_kb_path_env_adds_entries(run_vlkb, tmp_path):
    src = ROOT / "kb/entries/cuda-oom/cuda-oom.yaml"
    (tmp_path / "cuda-oom.yaml").write_text(src.read_text().replace("title: ", "title: Ours - ", 1))
    code, out, _ = run_vlkb("kb", "show", "cuda-oom", env={"VLKB_KB_PATH": str(tmp_path)})
    assert "# Ours - " in out


def test_generated_docs_are_current(engine, diagnosed):
    from vlkb.kb import accuracy as report
    from vlkb.kb import docs, load

    entries = load()
    assert (ROOT / "kb/INDEX.md").read_text() == docs.render_index(entries), "run `vlkb kb fit`"
    outcomes = report.evaluate(engine, entries, diagnosed)
    table = report.markdown_table(outcomes, sorted({e.family for e in entries}))
    readme = (ROOT / "README.md").read_text()
    assert f"{report.README_START}\n{table}\n{report.README_END}" in readme, "run `vlkb kb fit`"


@pytest.mark.parametrize("args", [("kb", "search", "nan"), ("kb", "build"), ("reports", "build")])
def test_a_home_that_cannot_be_written_is_one_line_and_exit_2(run_vlkb, tmp_path, args):
    """Issue 15: a home vlkb cannot create (here under a file, which stops root too) is an error line
    that names VLKB_HOME, never a traceback."""
    (tmp_path / "file").write_text("")
    code, out, err = run_vlkb(*args, env={"VLKB_HOME": str(tmp_path / "file" / "home")})
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith("vlkb: error: Not a directory") and "VLKB_HOME is" in err and len(err.splitlines()) == 1
