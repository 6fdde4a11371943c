"""`vlkb triage`: every job diagnosed exactly as `vlkb diagnose` would, faults as rows, groups, new
failures against the history, and hosts that hold more failed roots than chance."""
from __future__ import annotations

import csv
import faulthandler
import io
import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from vlkb import triage as fleet
from vlkb import triage_groups, triage_pool, triage_ray
from vlkb.analyzer.report.sarif import UNKNOWN_RULE
from vlkb.kb import fixtures as fx

ROOT = Path(__file__).resolve().parent.parent
KB = ROOT / "kb" / "entries"


@pytest.fixture
def jobs_dir(tmp_path):
    """A fleet of real logs: two samples, an unknown failure, a job of rank files, a binary file."""
    d = tmp_path / "fleet"
    d.mkdir()
    for p in sorted((ROOT / "data" / "samples").glob("*.log")):
        shutil.copy(p, d / p.name)
    (d / "restore.log").write_text(fx.parse(ROOT / "kb" / "unknown" / "torch-restore-location-mps.log").text)
    ranks = d / "job-ranks"
    ranks.mkdir()
    (ranks / "rank0.log").write_text(fx.parse(KB / "nccl-timeout" / "nccl-timeout.pos-llamafactory-reduce-scatter.log").text)
    (d / "core.bin").write_bytes(bytes(range(32)) * 64)
    (d / ".hidden").write_text("skipped")
    return d


def test_every_job_is_diagnosed_as_vlkb_diagnose_would(run_vlkb, jobs_dir, tmp_path):
    env = {"VLKB_HOME": str(tmp_path / "home")}
    code, out, err = run_vlkb("triage", str(jobs_dir), "--format", "json", "--no-history", env=env)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "vlkb.triage/1"
    rows = {r["job"]: r for r in doc["jobs"]}
    assert set(rows) == {"llamafactory-minicpmv-zero2-ranks.log", "ms-swift-minicpmv-dpo-zero2.log", "restore.log",
                         "job-ranks", "core.bin"}
    assert rows["core.bin"]["status"] == "unreadable" and "binary" in rows["core.bin"]["error"]
    for name, row in rows.items():
        if row["status"] != "ok":
            continue
        code, out, _ = run_vlkb("diagnose", str(jobs_dir / name), "--format", "sarif", "--no-history", "--no-similar",
                                env=env)
        result = json.loads(out)["runs"][0]["results"][0]
        assert row["fingerprint"] == result["partialFingerprints"]["vlkbRootFailure/v1"]
        assert row["verdict"] == result["properties"]["verdict"]
        assert row["entry"] == (None if result["ruleId"] == UNKNOWN_RULE else result["ruleId"])
        assert row["confidence"] == (None if result["properties"]["confidence"] is None
                                     else round(result["properties"]["confidence"], 4))
    assert rows["job-ranks"]["entry"] == "nccl-timeout" and rows["restore.log"]["verdict"] == "unknown"
    by_entry = {g["key"]: g["jobs"] for g in doc["groups"]["by_entry"]}
    assert by_entry["zero-grad-reduced-twice"] == 2 and by_entry["unknown"] == 1
    assert doc["summary"] == {"jobs": 5, "finished": 5, "interrupted": False, "status": {"ok": 4, "unreadable": 1},
                              "verdicts": {"known": 3, "unknown": 1}}


def test_failures_are_new_until_the_history_has_seen_them(run_vlkb, jobs_dir, tmp_path):
    env = {"VLKB_HOME": str(tmp_path / "home")}
    first = json.loads(run_vlkb("triage", str(jobs_dir), "--format", "json", env=env)[1])
    assert all(r["new"] for r in first["jobs"] if r["fingerprint"])
    again = json.loads(run_vlkb("triage", str(jobs_dir), "--format", "json", env=env)[1])
    assert not any(r["new"] for r in again["jobs"])
    code, out, _ = run_vlkb("history", "--format", "json", env=env)
    assert len(json.loads(out)["recent"]) == 8  # four diagnosed jobs, twice


def test_csv_text_and_the_jobs_glob(run_vlkb, jobs_dir, tmp_path):
    env = {"VLKB_HOME": str(tmp_path / "home")}
    code, out, _ = run_vlkb("triage", str(jobs_dir), "--jobs", "*.log", "--format", "csv", "--no-history", env=env)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["job"] for r in rows] == ["llamafactory-minicpmv-zero2-ranks.log", "ms-swift-minicpmv-dpo-zero2.log",
                                        "restore.log"]
    assert rows[1]["entry"] == "zero-grad-reduced-twice" and rows[1]["fingerprint"]
    code, out, _ = run_vlkb("triage", str(jobs_dir), "--no-history", env=env)
    assert "5 of 5 jobs: 3 known, 1 unknown, 1 unreadable" in out and "By failure" in out
    code, _, err = run_vlkb("triage", str(jobs_dir), "--jobs", "nothing-*", env=env)
    assert code == 2 and "no jobs" in err


def test_a_job_name_with_control_bytes_is_shown_escaped(run_vlkb, jobs_dir, tmp_path):
    name = "evil\x1b]0;pwned\x07.log"
    shutil.copy(ROOT / "data" / "samples" / "ms-swift-minicpmv-dpo-zero2.log", jobs_dir / name)
    code, out, _ = run_vlkb("triage", str(jobs_dir), "--no-history", env={"VLKB_HOME": str(tmp_path / "home")})
    assert "\x1b" not in out and "\x07" not in out and "evil\\x1b]0;pwned\\x07.log" in out


class _Faulty:
    """The real engine, except that one job's worker dies of a segfault and another never ends: what a
    native crash or a hung read does to a worker."""

    def __init__(self, engine):
        self.engine = engine

    def diagnose(self, inputs, **kw):
        if inputs[0].endswith("restore.log"):
            faulthandler.disable()  # pytest's handler would print the worker's stack to the suite's stderr
            os.kill(os.getpid(), signal.SIGSEGV)
        if inputs[0].endswith("job-ranks"):
            time.sleep(60)
        return self.engine.diagnose(inputs, **kw)


def test_a_crashed_or_overdue_worker_is_a_row_and_the_run_goes_on(engine, jobs_dir):
    jobs = fleet.find_jobs([str(jobs_dir)])
    start = time.monotonic()
    rows = {r["job"]: r for r in triage_pool.run(_Faulty(engine), jobs, workers=2, timeout=3)}
    assert time.monotonic() - start < 30
    assert len(rows) == len(jobs)
    assert rows["restore.log"]["status"] == "crashed" and "SIGSEGV" in rows["restore.log"]["error"]
    assert rows["job-ranks"]["status"] == "timeout"
    assert rows["ms-swift-minicpmv-dpo-zero2.log"]["entry"] == "zero-grad-reduced-twice"


def test_an_interrupted_run_leaves_no_worker_behind(engine, jobs_dir):
    jobs = [j for j in fleet.find_jobs([str(jobs_dir)]) if j.name == "job-ranks"]  # its worker sleeps 60 s

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    before = set(_children())  # the suite's own children, started by other tests
    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.0)  # Ctrl-C, a second in
    try:
        with pytest.raises(KeyboardInterrupt):
            list(triage_pool.run(_Faulty(engine), jobs, workers=1))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert set(_children()) <= before


def _children() -> list[int]:
    me = os.getpid()
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if int((p / "stat").read_text().split(") ", 1)[1].split()[1]) == me:
                    state = (p / "stat").read_text().split(") ", 1)[1].split()[0]
                    if state != "Z":
                        out.append(int(p.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def test_a_host_with_more_failed_roots_than_chance_is_suspect():
    # 12 failed jobs on four hosts each; node-c holds 9 roots where chance gives it 3
    rows = [{"root_host": "node-c" if i < 9 else f"node-{'abd'[i % 3]}", "hosts": ["node-a", "node-b", "node-c", "node-d"]}
            for i in range(12)]
    found = triage_groups.suspects(rows, "root_host", "hosts")
    assert [s["name"] for s in found] == ["node-c"] and found[0]["roots"] == 9 and found[0]["expected"] == 3.0
    # the same roots spread evenly: nobody is suspect; a job on one host says nothing
    even = [{"root_host": f"node-{'abcd'[i % 4]}", "hosts": ["node-a", "node-b", "node-c", "node-d"]} for i in range(12)]
    assert triage_groups.suspects(even, "root_host", "hosts") == []
    alone = [{"root_host": "node-c", "hosts": ["node-c"]} for _ in range(12)]
    assert triage_groups.suspects(alone, "root_host", "hosts") == []


def test_ray_gives_the_local_engines_rows(run_vlkb, jobs_dir, tmp_path):
    pytest.importorskip("ray")  # the test command installs vlkb[ray]: this runs in CI, on a local Ray
    env = {"VLKB_HOME": str(tmp_path / "home"), "RAY_ADDRESS": ""}
    code, local, err = run_vlkb("triage", str(jobs_dir), "--format", "json", "--no-history", "--workers", "2", env=env)
    assert code == 0, err
    code, on_ray, err = run_vlkb("triage", str(jobs_dir), "--format", "json", "--no-history", "--workers", "2",
                                 "--engine", "ray", env=env)
    assert code == 0, err

    def same(doc):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(doc)["jobs"]]

    assert same(on_ray) == same(local) and len(same(local)) == 5
    assert json.loads(on_ray)["groups"] == json.loads(local)["groups"]


def test_without_ray_the_ray_engine_says_how_to_install_it(run_vlkb, jobs_dir, tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "ray.py").write_text("raise ImportError('No module named ray')\n")
    code, _, err = run_vlkb("triage", str(jobs_dir), "--engine", "ray",
                            env={"VLKB_HOME": str(tmp_path / "home"), "PYTHONPATH": str(shim)})
    assert code == 2 and "pip install 'vlkb[ray]'" in err


def _faulty_ray_job(job, extra_kb):
    """The Ray task's function, except that one job's worker dies of a segfault and another never ends."""
    if job.name == "restore.log":
        faulthandler.disable()
        os.kill(os.getpid(), signal.SIGSEGV)
    if job.name == "job-ranks":
        time.sleep(60)
    return triage_ray._ray_job(job, extra_kb)


def test_on_ray_a_crashed_or_overdue_task_is_a_row_and_the_run_goes_on(jobs_dir, monkeypatch):
    ray = pytest.importorskip("ray")
    import sys

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the task's function travels by value
    monkeypatch.setenv("RAY_ADDRESS", "")
    jobs = fleet.find_jobs([str(jobs_dir)])
    start = time.monotonic()
    rows = {r["job"]: r for r in triage_ray.run_ray(jobs, [], workers=2, timeout=5, per_job=_faulty_ray_job)}
    assert time.monotonic() - start < 90
    assert len(rows) == len(jobs) and not ray.is_initialized()  # the local Ray it started is stopped
    assert rows["restore.log"]["status"] == "crashed" and "Ray task failed" in rows["restore.log"]["error"]
    assert rows["job-ranks"]["status"] == "timeout"
    assert rows["ms-swift-minicpmv-dpo-zero2.log"]["entry"] == "zero-grad-reduced-twice"
    assert rows["core.bin"]["status"] == "unreadable"


def _same_but_where(rows: list[dict]) -> list[dict]:
    """Rows without what names the place (and the error message, which names it too)."""
    return [{k: v for k, v in r.items() if k not in ("path", "root_path", "seconds", "error")} for r in rows]


def test_a_fleet_behind_a_url_is_triaged_as_on_disk(engine, jobs_dir):
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    for p in sorted(jobs_dir.rglob("*")):
        if p.is_file():
            memory.pipe(f"/fleet-{os.getpid()}/{p.relative_to(jobs_dir)}", p.read_bytes())
    try:
        url = f"memory://fleet-{os.getpid()}"
        remote = fleet.find_jobs([url])
        local = fleet.find_jobs([str(jobs_dir)])
        assert [j.name for j in remote] == [j.name for j in local] and [j.size for j in remote] == [j.size for j in local]
        assert remote[0].path.startswith("memory://")
        by_name = {j.name: i for i, j in enumerate(local)}
        on_url = sorted(triage_pool.run(engine, remote, workers=2), key=lambda r: by_name[r["job"]])
        on_disk = sorted(triage_pool.run(engine, local, workers=2), key=lambda r: by_name[r["job"]])
        assert _same_but_where(on_url) == _same_but_where(on_disk)
        ranks, core = remote[by_name["job-ranks"]].path, remote[by_name["core.bin"]].path
        assert ranks.startswith("memory://") and on_url[by_name["job-ranks"]]["root_path"] == f"{ranks}/rank0.log"
        assert on_url[by_name["core.bin"]]["error"] == f"{core}: not a text log (80% binary control bytes)"
    finally:
        memory.rm(f"/fleet-{os.getpid()}", recursive=True)


def test_on_ray_url_jobs_are_read_by_the_tasks(run_vlkb, jobs_dir, tmp_path):
    pytest.importorskip("ray")
    pytest.importorskip("fsspec")
    env = {"VLKB_HOME": str(tmp_path / "home"), "RAY_ADDRESS": ""}
    code, local, err = run_vlkb("triage", str(jobs_dir), "--format", "json", "--no-history", env=env)
    assert code == 0, err
    code, on_ray, err = run_vlkb("triage", f"file://{jobs_dir}", "--format", "json", "--no-history", "--workers", "2",
                                 "--engine", "ray", env=env)
    assert code == 0, err
    assert _same_but_where(json.loads(on_ray)["jobs"]) == _same_but_where(json.loads(local)["jobs"])
    assert all(r["path"].startswith("file://") for r in json.loads(on_ray)["jobs"])


def test_a_url_without_fsspec_or_its_package_says_what_to_install(run_vlkb, tmp_path):
    code, _, err = run_vlkb("diagnose", "s3://no-such-bucket/run/train.log", env={"VLKB_HOME": str(tmp_path)})
    assert code == 2 and "s3fs" in err and "Traceback" not in err
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "fsspec.py").write_text("raise ImportError('No module named fsspec')\n")
    code, _, err = run_vlkb("triage", "gs://bucket/failed/", env={"VLKB_HOME": str(tmp_path), "PYTHONPATH": str(shim)})
    assert code == 2 and "pip install fsspec" in err and "Traceback" not in err
    code, _, err = run_vlkb("diagnose", f"file://{tmp_path}/missing.log", env={"VLKB_HOME": str(tmp_path)})
    assert code == 2 and "no such file" in err


def test_parquet_holds_the_json_rows_typed_and_the_groups_in_its_metadata(run_vlkb, jobs_dir, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    env = {"VLKB_HOME": str(tmp_path / "home")}
    code, _, err = run_vlkb("triage", str(jobs_dir), "--format", "json", "--no-history", "-o", str(tmp_path / "t.json"),
                            env=env)
    assert code == 0, err
    doc = json.loads((tmp_path / "t.json").read_text())
    code, _, err = run_vlkb("triage", str(jobs_dir), "--format", "parquet", "--no-history",
                            "--output", str(tmp_path / "t.parquet"), env=env)
    assert code == 0, err
    table = pq.read_table(tmp_path / "t.parquet")
    assert table.schema.field("confidence").type == "double" and table.schema.field("root_line").type == "int64"
    meta = table.schema.metadata
    assert meta[b"vlkb.schema"] == b"vlkb.triage/1" and json.loads(meta[b"vlkb.groups"]) == doc["groups"]
    assert json.loads(meta[b"vlkb.summary"]) == doc["summary"]

    def as_strings(row):
        return {k: (None if v is None else [str(x) for x in v] if isinstance(v, list) else v)
                for k, v in row.items() if k != "seconds"}

    expected = [as_strings({**r, "root_rank": None if r["root_rank"] is None else str(r["root_rank"])})
                for r in doc["jobs"]]
    assert [as_strings(r) for r in table.to_pylist()] == expected


def test_parquet_without_pyarrow_or_an_unwritable_output_says_what_to_do(run_vlkb, jobs_dir, tmp_path):
    shim = tmp_path / "shim"
    (shim / "pyarrow").mkdir(parents=True)
    (shim / "pyarrow" / "__init__.py").write_text("raise ImportError('No module named pyarrow')\n")
    code, _, err = run_vlkb("triage", str(jobs_dir), "--format", "parquet", "-o", str(tmp_path / "t.parquet"),
                            env={"VLKB_HOME": str(tmp_path / "home"), "PYTHONPATH": str(shim)})
    assert code == 2 and "pip install 'vlkb[parquet]'" in err and not (tmp_path / "t.parquet").exists()
    code, _, err = run_vlkb("triage", str(jobs_dir), "--no-history", "-o", str(tmp_path / "no-such-dir" / "t.txt"),
                            env={"VLKB_HOME": str(tmp_path / "home")})
    assert code == 2 and "cannot write" in err and "Traceback" not in err
