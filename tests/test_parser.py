"""The parser on the shapes real logs take. Inputs are real fixture lines re-wrapped the way each
launcher or CI system decorates them; the diagnosis must not change."""
import gzip
import json
import sys
from pathlib import Path

import pytest

from vlkb.analyzer.textnorm import canon, clean
from vlkb.kb import fixtures as fx
from vlkb.kb.loader import shipped_dir

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import mixes  # noqa: E402  (the benchmark's generators)

DDP = fx.parse(shipped_dir() / "ddp-mark-variable-ready-twice" /
               "ddp-mark-variable-ready-twice.pos-accelerate-lora-rank1.log")
ZERO = fx.parse(shipped_dir() / "zero-grad-reduced-twice" / "zero-grad-reduced-twice.pos-ms-swift-dpo-minicpmv.log")
GEMINI = fx.parse(shipped_dir() / "colossalai-gemini-grad-chunk-none" /
                  "colossalai-gemini-grad-chunk-none.pos-reconstructed-plain.log")


def _bare(text):
    """The fixture's lines without their own rank prefixes."""
    return [clean(line).text for line in text.splitlines()]


@pytest.mark.parametrize("raw,text,rank,host", [
    ("[rank3]: RuntimeError: x", "RuntimeError: x", "3", None),
    ("[default3]:RuntimeError: x", "RuntimeError: x", "3", None),
    ("  3: RuntimeError: x", "RuntimeError: x", "3", None),
    ("[1,3]<stderr>:RuntimeError: x", "RuntimeError: x", "3", None),
    ("node-1: RuntimeError: x", "RuntimeError: x", None, "node-1"),
    ("worker-0: [rank3]: RuntimeError: x", "RuntimeError: x", "3", "worker-0"),
    ("2024-06-01T10:00:00.1234567Z [rank0]: RuntimeError: x", "RuntimeError: x", "0", None),
    ("2024-06-01T10:00:00.123456789Z stderr F [rank0]: RuntimeError: x", "RuntimeError: x", "0", None),
    ("\x1b[31mRuntimeError\x1b[0m: x\r\n", "RuntimeError: x", None, None),
    (" 10%|#   | 1/10\r 20%|##  | 2/10\r100%|####| 10/10", "100%|####| 10/10", None, None),
    ("RuntimeError: not a host", "RuntimeError: not a host", None, None),
])
def test_clean_prefixes(raw, text, rank, host):
    c = clean(raw)
    assert (c.text, c.rank, c.host) == (text, rank, host)


def test_canon_drops_numbers_paths_and_parameter_names():
    a = canon("Parameter at index 129 with name base_model.model.layers.31.v_proj.weight at /home/u/x.py")
    b = canon("Parameter at index 7 with name model.visual.blocks.0.attn.qkv.bias at /opt/y/z.py")
    assert a == b


@pytest.mark.parametrize("style", ["plain", "torchrun", "default", "srun", "mpirun", "pdsh", "gha", "crlf",
                                   "quoted", "numbered", "cloud-tab", "compose", "kubectl", "cri", "quoted-torchrun",
                                   "json-escaped", "json-record"])
def test_same_diagnosis_under_every_launcher(engine, tmp_path, style):
    """The same real traceback as launchers, CI systems, collectors and a user's paste wrap it: a
    Markdown quote of the paste, a code viewer's line numbers, a cloud export's timestamp and tab,
    docker compose's and kubectl's prefixes, a Kubernetes node's container log file (CRI), and a JSON log record that escaped the newlines."""
    lines = _bare(GEMINI.text)
    wrap = {
        "plain": lambda l: l, "torchrun": lambda l: f"[rank1]:{l}", "default": lambda l: f"[default1]:{l}",
        "srun": lambda l: f"1: {l}", "mpirun": lambda l: f"[1,1]<stderr>:{l}", "pdsh": lambda l: f"node-3: {l}",
        "gha": lambda l: f"2025-01-01T00:00:00.0000000Z {l}", "crlf": lambda l: l,
        "quoted": lambda l: f"> {l}", "numbered": lambda l: f"{lines.index(l) + 1:5d} | {l}",
        "cloud-tab": lambda l: f"2025-01-01T00:00:00.123+00:00\t{l}", "compose": lambda l: f"trainer-1  | {l}",
        "kubectl": lambda l: f"[pod/train-worker-0/pytorch] {l}",
        "cri": lambda l: f"2025-01-01T00:00:{lines.index(l) % 60:02d}.123456789Z stderr F {l}", "quoted-torchrun": lambda l: f"> [rank1]:{l}",
        "json-escaped": lambda l: l, "json-record": lambda l: l,
    }[style]
    sep = "\r\n" if style == "crlf" else "\n"
    text = sep.join(wrap(l) for l in lines)
    if style == "json-escaped":  # one line, newlines escaped, as a JSON string's body
        text = json.dumps(text)[1:-1]
    elif style == "json-record":
        text = json.dumps({"log": text, "stream": "stderr", "time": "2025-01-01T00:00:00Z"})
    path = tmp_path / "train.log"
    path.write_bytes(text.encode())
    d = engine.diagnose([str(path)])
    assert d.verdict == "known" and d.matches[0].entry.id == "colossalai-gemini-grad-chunk-none"
    assert d.root.kind == "traceback" and len(d.root.frames) == 5


def test_interleaved_ranks_fold_into_one_incident_with_their_ranks(engine, tmp_path):
    lines = _bare(GEMINI.text)
    mixed = [f"[rank{r}]:{l}" for l in lines for r in (0, 1, 2)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(mixed))
    d = engine.diagnose([str(path)])
    assert d.root.ranks == ["0", "1", "2"] and d.root.count == 3
    assert len([i for i in d.incidents if i.kind == "traceback"]) == 1


def test_line_numbers_are_the_files_own(engine, tmp_path):
    noise = [f"  {i}%|#   | {i}/100 [00:01<00:10, 1.00it/s]" for i in range(5000)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(noise + _bare(ZERO.text)))
    d = engine.diagnose([str(path)])
    assert d.matches[0].evidence[0].lineno == 5000 + ZERO.match_line


def test_chained_exceptions_are_one_incident(engine, tmp_path):
    tb = _bare(GEMINI.text)
    chained = tb + ["", "During handling of the above exception, another exception occurred:", ""] + tb
    path = tmp_path / "train.log"
    path.write_text("\n".join(chained))
    d = engine.diagnose([str(path)])
    tracebacks = [i for i in d.incidents if i.kind == "traceback"]
    assert len(tracebacks) == 1 and len(tracebacks[0].chain) == 2


def test_an_indented_traceback_states_its_exception_at_its_own_indentation(engine, tmp_path):
    """A traceback logged or quoted indented (torchtitan's, pip's build output) keeps Python's layout
    shifted right: frames two columns in from the exception line. Its exception is the failure, not
    "a traceback cut before its exception", whatever the indentation; a line indented otherwise after
    the frames stays a source line."""
    field = Path(__file__).resolve().parent.parent / "data" / "corpus" / "field" / "cases"
    d = engine.diagnose([str(field / "torchtitan-2184.log")])  # github.com/pytorch/torchtitan/issues/2184
    assert d.root.summary.startswith("ValueError: Mesh 'tp' is not available.")
    assert d.root.frames[-1].func == "get_mesh"
    lines = _bare(GEMINI.text)
    for indent in ("  ", "      ", "\t"):
        path = tmp_path / "indented.log"
        path.write_text("\n".join(indent + line for line in lines) + "\n")
        shifted = engine.diagnose([str(path)])
        assert shifted.root.summary == engine.diagnose([str(_written(tmp_path, lines))]).root.summary
        assert not shifted.root.truncated


def _written(tmp_path, lines):
    path = tmp_path / "plain.log"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_workers_reraised_exception_is_the_failure(engine, tmp_path):
    """torch re-raises a DataLoader worker's (or a DataParallel replica's) exception as "Caught X in
    DataLoader worker process 0." with the worker's traceback inside its message: the worker's exception
    is what failed, in the same incident, whether or not the main process's traceback was pasted."""
    f = fx.parse(shipped_dir() / "shape-mismatch" / "shape-mismatch.pos-tr-misr-collate-stack-worker-windows.log")
    main = ["Traceback (most recent call last):", '  File "train.py", line 10, in <module>', "    for batch in loader:"]
    for lines in (f.text.splitlines(), main + f.text.splitlines()):
        path = tmp_path / "worker.log"
        path.write_text("\n".join(lines) + "\n")
        d = engine.diagnose([str(path)])
        assert d.root.summary.startswith("RuntimeError: stack expects each tensor to be equal size")
        assert [e.message for e in d.root.chain][0] == "Caught RuntimeError in DataLoader worker process 0."
        assert d.root.frames[-1].func == "collateFunction"
        assert d.named.entry.id == "shape-mismatch"


def test_multiline_message_is_kept(engine, tmp_path):
    path = tmp_path / "train.log"
    path.write_text(DDP.text)
    d = engine.diagnose([str(path)])
    assert d.root.message.startswith("Expected to mark a variable ready only once")
    assert "\nParameter at index 695 with name" in d.root.message  # the second line of the message
    assert d.root.ranks == ["1"]


def test_root_is_elected_over_cascade(engine, tmp_path):
    """A NCCL watchdog and the launcher's ChildFailedError follow the real failure: the real one is
    root even when the cascade is printed first by other ranks."""
    cascade = fx.parse(shipped_dir() / "zero-grad-reduced-twice" /
                       "zero-grad-reduced-twice.pos-piccolo-default-prefix.log")
    nccl = ("[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600125 "
            "milliseconds before timing out.")
    sigterm = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 1167 closing signal SIGTERM"
    path = tmp_path / "train.log"
    path.write_text("\n".join([nccl, cascade.text.splitlines()[-1], sigterm]))
    d = engine.diagnose([str(path)])
    assert d.root.kind == "error" and "already been reduced" in d.root.message
    assert {i.kind for i in d.incidents[1:]} >= {"nccl", "launcher"}
    assert all(i.cascade for i in d.incidents[1:])
    assert d.matches[0].entry.id == "zero-grad-reduced-twice"


def test_nccl_timeout_alone_is_the_root(engine, tmp_path):
    path = tmp_path / "train.log"
    path.write_text("[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
                    "WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600125 milliseconds before timing out.\n")
    d = engine.diagnose([str(path)])
    assert d.root is not None and d.root.kind == "nccl"


def test_torchrun_root_cause_rank_is_used(engine, tmp_path):
    """Two ranks fail; torchrun names rank 1 as the first observed failure."""
    tb = _bare(GEMINI.text)
    zero_line = _bare(ZERO.text)[-1]
    block = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
             "============================================================",
             "train.py FAILED", "------------------------------------------------------------",
             "Root Cause (first observed failure):", "[0]:", "  time      : 2024-10-28_10:21:07",
             "  host      : gpu-node", "  rank      : 1 (local_rank: 1)", "  exitcode  : 1 (pid: 3302)",
             "============================================================"]
    lines = [f"[rank0]:{zero_line}"] + [f"[rank1]:{l}" for l in tb] + ["Traceback (most recent call last):",
             '  File "/opt/conda/bin/torchrun", line 8, in <module>', "    sys.exit(main())"] + block
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines))
    d = engine.diagnose([str(path)])
    assert d.root.ranks == ["1"] and d.matches[0].entry.id == "colossalai-gemini-grad-chunk-none"
    assert any(i.exception and i.exception.endswith("ChildFailedError") and i.cascade for i in d.incidents)


def test_metric_nan_lines_fold(engine):
    f = fx.parse(shipped_dir() / "loss-nan" / "loss-nan.pos-llamafactory-windows-bf16.log")
    import tempfile, os
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as t:
        t.write(f.text)
    try:
        d = engine.diagnose([t.name])
    finally:
        os.unlink(t.name)
    assert d.root.kind == "metric" and d.root.count == 7


# ---- inputs of every shape --------------------------------------------------------------------

def test_gzip_stdin_directory_and_several_files(run_vlkb, tmp_path):
    gz = tmp_path / "train.log.gz"
    gz.write_bytes(gzip.compress(ZERO.text.encode()))
    code, out, _ = run_vlkb("diagnose", str(gz), "--format", "json")
    assert code == 0 and '"zero-grad-reduced-twice"' in out
    code, out, _ = run_vlkb("diagnose", "-", "--format", "json", stdin=gzip.compress(ZERO.text.encode()))
    assert code == 0 and '"zero-grad-reduced-twice"' in out
    d = tmp_path / "logs"
    d.mkdir()
    (d / "rank0.log").write_text("step 1 loss 2.0\n")
    (d / "rank1.log").write_text(DDP.text)
    (d / "model.safetensors").write_bytes(bytes(range(256)) * 100)  # a binary beside the logs
    code, out, _ = run_vlkb("diagnose", str(d), "--format", "json")
    assert code == 0 and '"ddp-mark-variable-ready-twice"' in out and "rank1.log" in out
    assert "skipped" in out and "model.safetensors: not a text log" in out


def test_truncated_gzip_keeps_what_was_read(run_vlkb, tmp_path):
    data = gzip.compress((ZERO.text + "x" * 100000).encode())
    gz = tmp_path / "cut.log.gz"
    gz.write_bytes(data[: len(data) - 30])
    code, out, _ = run_vlkb("diagnose", str(gz), "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["verdict"] == "known"
    assert sum("compressed stream is truncated" in n for n in d["notes"]) == 1  # said once
    # a log whose whole text sat in the one read the cut ended: all of it was lost before
    small = gzip.compress((ZERO.text + "".join(f"step {i}\n" for i in range(20000))).encode())
    gz.write_bytes(small[: len(small) // 2])
    code, out, _ = run_vlkb("diagnose", str(gz), "--format", "json")
    assert code == 0 and json.loads(out)["verdict"] == "known"


def test_every_member_of_a_concatenated_gzip_is_read(engine, tmp_path):
    gz = tmp_path / "ab.log.gz"
    gz.write_bytes(gzip.compress(b"step 1\n" * 1000) + gzip.compress(ZERO.text.encode()))
    d = engine.diagnose([str(gz)])
    assert d.verdict == "known" and d.stats.lines == 1000 + len(ZERO.text.splitlines()) and not d.stats.notes


@pytest.mark.parametrize("content,message", [
    (b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 50, "not a text log"),
    (b"\x00" * 5000, "nothing but NUL bytes"),
    (b"\x00" * 5000 + b"\x01\x02" * 3000, "binary control bytes"),  # NULs, then no text either
])
def test_binary_input_is_a_clear_error(run_vlkb, tmp_path, content, message):
    p = tmp_path / "model.bin"
    p.write_bytes(content)
    code, out, err = run_vlkb("diagnose", str(p))
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("nuls", [70_000, 300_000])
def test_a_log_after_a_run_of_nuls_is_read_with_its_line_numbers(run_vlkb, tmp_path, nuls):
    """logrotate's copytruncate (or a writer that crashed) leaves NULs where the log began: the text
    after them is read, from a file and from a pipe, and the lines keep their numbers."""
    p = tmp_path / "rotated.log"
    p.write_bytes(b"\x00" * nuls + b"step 1\n" + ZERO.text.encode())
    want = 1 + ZERO.match_line  # the line "step 1" came first
    for args, stdin in (((str(p),), None), (("-",), p.read_bytes())):
        code, out, _ = run_vlkb("diagnose", *args, "--format", "json", "--no-history", stdin=stdin)
        d = json.loads(out)
        assert code == 0 and d["matches"][0]["entry"] == "zero-grad-reduced-twice", (args, out[-400:])
        assert any(f"starts with {nuls:,} NUL bytes" in n for n in d["notes"])
        assert want in {line["line"] for line in d["matches"][0]["evidence"]}


def test_missing_empty_and_unreadable(run_vlkb, tmp_path):
    code, _, err = run_vlkb("diagnose", str(tmp_path / "nope.log"))
    assert code == 2 and "no such file" in err and "Traceback" not in err
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    code, out, _ = run_vlkb("diagnose", str(empty), "--format", "json")
    assert code == 1 and '"verdict": "clean"' in out and "empty input" in out
    # an empty directory is empty input too, answered as the empty file is (issue 16)
    (tmp_path / "nothing").mkdir()
    code, out, _ = run_vlkb("diagnose", str(tmp_path / "nothing"), "--format", "json")
    assert code == 1 and '"verdict": "clean"' in out and "holds no files" in out


def test_invalid_utf8_nul_bytes_and_a_huge_line(run_vlkb, tmp_path):
    p = tmp_path / "messy.log"
    huge = b"A" * (20 << 20)  # 20 MiB without a newline
    p.write_bytes(b"\xff\xfe garbage \x00\x00\n" + huge + b"\n" + ZERO.text.encode())
    code, out, _ = run_vlkb("diagnose", str(p), "--format", "json")
    assert code == 0 and "was cut to" in out and '"zero-grad-reduced-twice"' in out


def test_a_cut_traceback_is_not_swallowed_by_the_next_ranks_watchdog(engine, tmp_path):
    """A rank's traceback cut off mid-frames, then that rank's NCCL watchdog line: the watchdog is its
    own (cascade) incident and the cut traceback stays the real failure."""
    frames = fx.parse(shipped_dir() / "zero-grad-reduced-twice" /
                      "zero-grad-reduced-twice.pos-llamafactory-minicpmv-partial.log").text.splitlines()
    rank0 = [l for l in frames if l.startswith("[rank0]:")]
    watchdog = ("[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
                "WorkNCCL(SeqNum=931, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
                "1800104 milliseconds before timing out.")
    path = tmp_path / "train.log"
    path.write_text("\n".join(rank0 + [watchdog]))
    d = engine.diagnose([str(path)])
    assert d.root.kind == "traceback" and not d.root.cascade
    assert all("Watchdog" not in l.text for l in d.root.lines)
    assert d.verdict == "known" and d.matches[0].entry.id == "zero-grad-reduced-twice"


def test_vscode_notebook_json_error_is_an_exception(engine, tmp_path):
    """VS Code copies a failed cell's output as JSON: "name" holds the type, "message" the message
    (over several lines, closed by `",`), "stack" the IPython traceback. The exception is the root,
    with its type and its whole message; the stack's traceback is not a second failure before it."""
    fixture = fx.parse(shipped_dir() / "cuda-device-side-assert" /
                       "cuda-device-side-assert.pos-vscode-notebook-json-peft-generate.log")
    path = tmp_path / "cell.log"
    path.write_text(fixture.text)
    d = engine.diagnose([str(path)])
    assert (d.root.exception, d.root.message.splitlines()[0]) == ("RuntimeError", "CUDA error: device-side assert triggered")
    assert d.root.message.splitlines()[-1] == "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    assert d.root.chain[0].line.lineno == fixture.match_line


def test_a_lone_json_name_key_is_not_an_exception(engine, tmp_path):
    path = tmp_path / "config.log"
    path.write_text('{\n  "name": "ValueError",\n  "value": 3\n}\n')
    assert engine.diagnose([str(path)]).verdict == "clean"


def test_a_traceback_flattened_onto_one_line_keeps_its_frames_and_exception(engine, tmp_path):
    """A paste outside a code block turns the newlines into spaces: the frames and the exception are
    read from the one line, and the diagnosis is the plain log's."""
    lines = [l.strip() for l in _bare(GEMINI.text)]
    path = tmp_path / "flat.log"
    path.write_text(" ".join(lines) + "\n")
    d = engine.diagnose([str(path)])
    assert d.verdict == "known" and d.matches[0].entry.id == "colossalai-gemini-grad-chunk-none"
    assert len(d.root.frames) == 5 and d.root.exception == "AssertionError"


def test_a_traceback_that_never_ends_stops_holding_the_parser(engine, tmp_path):
    """A traceback header followed by endless lines that are no frame (a hostile or garbled log) would
    keep every later line parsed one by one; after MAX_FRAME_GAP such lines the traceback is over, and
    a real failure further down is still its own incident, the root."""
    from vlkb.analyzer.model import Line
    from vlkb.analyzer.records import RecordParser
    from vlkb.analyzer.recordstates import MAX_FRAME_GAP

    noise = [f"step {i} value={i * 3}" for i in range(5 * MAX_FRAME_GAP)]
    parser = RecordParser(lambda inc: inc)
    for i, text in enumerate(["Traceback (most recent call last):", *noise], 1):
        parser.feed(Line("x", i, text))
    assert not parser.busy
    path = tmp_path / "train.log"
    path.write_text("\n".join(["Traceback (most recent call last):", *noise, DDP.text]))
    d = engine.diagnose([str(path)])
    assert d.verdict == "known" and d.matches[0].entry.id == "ddp-mark-variable-ready-twice"
    assert d.root.first.lineno > 1 + len(noise)


# Issue 15's hostile lines (benchmarks/mixes.hostile_lines), each 1 MB: a regex that backtracks per
# character on one of them takes hours at this size (the pdsh host prefix took 142 s at 100 KB, the
# pip-list gate 77 s at 20 KB), so a regression hangs this test rather than slowing it;
# benchmarks/bench_hostile.py prints the times and their growth.
HOSTILE = mixes.hostile_lines(1 << 20)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_megabyte_line_is_read_in_linear_time(engine, tmp_path, name):
    log = tmp_path / "hostile.log"
    log.write_text("Traceback (most recent call last):\n" + HOSTILE[name] + "\nstep 2\n", encoding="utf-8")
    d = engine.diagnose([str(log)])
    assert d.verdict in ("known", "unknown") and d.root is not None


def test_a_traceback_keeps_bounded_frames_and_lines_and_says_so(engine, tmp_path):
    """Memory is bounded by design (issue 15): a recursion of 5,000 frames keeps MAX_FRAMES of them,
    its outermost and its innermost, and a 1 MB source line is kept as its head and tail; each cut is
    stated as a note."""
    from vlkb.analyzer.records import MAX_KEPT_CHARS
    from vlkb.analyzer.recordstates import MAX_FRAMES
    frames = "".join(f'  File "/w/m{i}.py", line {i}, in f{i}\n    f{i + 1}()\n' for i in range(5000))
    log = tmp_path / "deep.log"
    log.write_text("Traceback (most recent call last):\n" + frames + "    " + "x" * (1 << 20) + "\n"
                   "RecursionError: maximum recursion depth exceeded\n", encoding="utf-8")
    d = engine.diagnose([str(log)])
    root = d.root
    assert root.exception == "RecursionError" and len(root.frames) == MAX_FRAMES
    assert root.frames[0].file == "/w/m0.py" and root.frames[-1].file == "/w/m4999.py"
    assert max(len(line.text) for line in root.lines) < MAX_KEPT_CHARS + 100
    notes = d.stats.notes
    assert any("frames from the middle" in n for n in notes) and any("kept shortened" in n for n in notes)


def test_a_lazy_import_wrapper_without_its_type_keeps_the_error_it_wraps(engine, tmp_path):
    """transformers' `Failed to import X because of the following error (look up to see its traceback):`
    printed without `RuntimeError:` (a logger, ComfyUI's console): the next line is its message
    (numz/ComfyUI-SeedVR2_VideoUpscaler#156)."""
    log = tmp_path / "run.log"
    log.write_text("Failed to import diffusers.loaders.peft because of the following error (look up to see its traceback):\n"
                   "No module named 'accelerate'\n")
    d = engine.diagnose([str(log)])
    assert d.root.message.endswith("No module named 'accelerate'")
    assert d.named is not None and d.named.entry.id == "module-not-found"


def _letters(n: int) -> str:
    """n in letters ("b", "ba", ...): distinct messages that no number masking folds together."""
    out = ""
    while True:
        n, r = divmod(n, 26)
        out = chr(97 + r) + out
        if not n:
            return out


def test_failures_past_the_budget_keep_the_first_and_the_latest_in_arrival_order(monkeypatch):
    """Memory is bounded whatever the input (issue 15): past MAX_FAILURES distinct failures only the
    latest TAIL_FAILURES are kept; warnings keep arriving in between, and order is arrival order."""
    from vlkb.analyzer import fold
    from vlkb.analyzer.model import Exc, Incident, Line

    monkeypatch.setattr(fold, "MAX_FAILURES", 10)
    monkeypatch.setattr(fold, "TAIL_FAILURES", 5)
    c = fold.Collector()

    def incident(kind, n):
        line = Line("x.log", n, f"{'ValueError' if kind == 'error' else 'UserWarning'}: case {_letters(n)}")
        return Incident(kind=kind, lines=[line], chain=[Exc("ValueError", f"case {_letters(n)}", line)] if kind == "error" else [])

    for n in range(1, 101):
        c.add(incident("warning" if n % 10 == 0 else "error", n))
    kept = [(i.kind, i.first.lineno) for i in c.incidents()]
    errors = [n for kind, n in kept if kind == "error"]
    assert errors == [1, 2, 3, 4, 5, 6, 7, 8, 9, 11] + [95, 96, 97, 98, 99]
    assert [n for kind, n in kept if kind == "warning"] == list(range(10, 101, 10))
    assert [n for _, n in kept] == sorted(n for _, n in kept)  # arrival order, head and tail merged
    assert c.dropped_failures == 90 - 15
    assert c.add(incident("error", 12)) is not None and c.dropped_failures == 90 - 14  # an evicted one is new again


def test_a_log_of_thousands_of_distinct_errors_says_what_it_did_not_keep(engine, tmp_path):
    p = tmp_path / "storm.log"
    p.write_text("".join(f"Traceback (most recent call last):\n  File \"x.py\", line {i}, in f\n"
                         f"ValueError: bad value {_letters(i)}\n" for i in range(6000)))
    d = engine.diagnose([str(p)])
    from vlkb.analyzer.fold import MAX_FAILURES, TAIL_FAILURES

    assert len([i for i in d.incidents if i.kind == "traceback"]) == MAX_FAILURES + TAIL_FAILURES
    assert f"{6000 - MAX_FAILURES - TAIL_FAILURES} distinct failures after the first" in " ".join(d.stats.notes)
    lines = {i.first.lineno for i in d.incidents}
    assert 1 in lines and 3 * 5999 + 1 in lines  # the first failure and the last
