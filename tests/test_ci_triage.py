"""CI triage output: golden files of each format on real logs, the SARIF schema, the GitHub
workflow commands, --fail-on, and logs written to attack the comment (a fork controls its log)."""
import json
import re
from pathlib import Path

import pytest

from vlkb.analyzer.report import Context, github, markdown, sarif
from vlkb.analyzer.report import json_
from vlkb.kb import fixtures as fx

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.subset.json"
UPDATE = "python -m pytest tests/test_ci_triage.py --update-goldens   # then review the diff"

# (case name, real log): one per verdict, and a multi-rank log with its cascade
CASES = {
    "known-zero2": ROOT / "data/samples/ms-swift-minicpmv-dpo-zero2.log",
    "known-ranks": ROOT / "data/samples/llamafactory-minicpmv-zero2-ranks.log",
    "unknown": ROOT / "kb/unknown/torch-restore-location-mps.log",
    "suspicious": ROOT / "kb/entries/checkpoint-inputs-no-grad-silent/checkpoint-inputs-no-grad-silent.pos-tinyllava-lora.log",
    "clean-explained": ROOT / "kb/entries/checkpoint-inputs-no-grad-silent/"
                              "checkpoint-inputs-no-grad-silent.neg-llamafactory-full-frozen-vision.log",
}
FORMATS = {"md": lambda d, e: markdown.render(d), "sarif": lambda d, e: sarif.render(d, Context(tuple(e.entries))),
           "github": lambda d, e: github.render(d)}


def _diagnose(engine, name, tmp_path, monkeypatch):
    """The case's log (fixture headers removed) as `<name>.log` in the working directory, so paths
    in the output are the same on every machine."""
    src = CASES[name]
    text = fx.parse(src).text if src.name.endswith(".log") and "#=SOURCE=#" in src.read_text()[:200] else src.read_text()
    (tmp_path / f"{name}.log").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return engine.diagnose([f"{name}.log"])


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", CASES)
def test_golden(engine, name, fmt, tmp_path, monkeypatch, update_goldens):
    out = FORMATS[fmt](_diagnose(engine, name, tmp_path, monkeypatch), engine)
    golden = GOLDEN / f"{name}.{fmt}"
    if update_goldens:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(out, encoding="utf-8")
    assert golden.exists(), f"no golden {golden.name}: {UPDATE}"
    assert out == golden.read_text(encoding="utf-8"), f"{golden.name} changed; if intended: {UPDATE}"


@pytest.mark.parametrize("name", CASES)
def test_sarif_is_valid_sarif_2_1_0(engine, name, tmp_path, monkeypatch):
    jsonschema = pytest.importorskip("jsonschema")
    doc = sarif.to_dict(_diagnose(engine, name, tmp_path, monkeypatch), engine.entries)
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} >= {e.id for e in engine.entries}
    for result in doc["runs"][0]["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_fingerprint_is_stable_across_ranks_paths_numbers_and_times(engine, tmp_path):
    a = tmp_path / "a.log"
    b = tmp_path / "sub" / "rank7.log"
    b.parent.mkdir()
    a.write_text("[rank0]: Traceback (most recent call last):\n"
                 '[rank0]:   File "/home/u/train.py", line 10, in step\n'
                 "[rank0]: RuntimeError: shape mismatch at 2024-05-01 10:00:03 for tensor 17 of 32\n")
    b.write_text("2025-01-09T08:00:00.1Z [rank7]: Traceback (most recent call last):\n"
                 '2025-01-09T08:00:00.1Z [rank7]:   File "/opt/job/train.py", line 12, in step\n'
                 "2025-01-09T08:00:00.1Z [rank7]: RuntimeError: shape mismatch at 2025-01-09 08:00:00 for tensor 3 of 64\n")
    fps = [sarif.to_dict(engine.diagnose([str(p)]), engine.entries)["runs"][0]["results"][0]["partialFingerprints"]
           for p in (a, b)]
    assert fps[0] == fps[1]


def test_github_commands_cannot_be_injected(engine, tmp_path, monkeypatch):
    log = tmp_path / "evil.log"
    log.write_text("RuntimeError: boom\n::error file=x.py,line=1::forged\r%0A::warning::also forged, 100%\n")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = github.render(engine.diagnose([str(log)]))
    commands = out.splitlines()[:-1]
    assert commands and all(re.match(r"^::(error|warning|notice) [^:]*::", c) for c in commands)
    assert all("\n" not in c and "\r" not in c for c in commands)
    assert "%25" in out and "forged" in out  # escaped, still readable
    assert not any(c.startswith("::error file=x.py") for c in commands)
    assert summary.read_text().startswith(markdown.MARKER)


def test_at_most_ten_annotations_best_first(engine, tmp_path):
    log = tmp_path / "many.log"
    log.write_text("".join(f"step {i}\nTraceback (most recent call last):\n  File \"/w/m{i}.py\", line {i + 1}, in f{i}\n"
                           f"ValueError: failure number {i} in module_{chr(97 + i % 26)}{i}\nstep {i} done\n"
                           for i in range(30)))
    d = engine.diagnose([str(log)])
    out = github.annotations(d)
    assert len(out) == 10 and "module_a0" in out[0]


def test_step_summary_never_passes_one_megabyte(engine, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("x" * (github.MAX_SUMMARY_BYTES - 100))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    github.render(engine.diagnose([str(CASES["known-zero2"])]))
    assert summary.stat().st_size <= github.MAX_SUMMARY_BYTES


def test_a_summary_that_cannot_be_written_is_an_annotation_not_a_traceback(run_vlkb, tmp_path):
    """A bad $GITHUB_STEP_SUMMARY (issue 15): the annotations and the verdict still reach the step log."""
    code, out, err = run_vlkb("diagnose", str(CASES["known-zero2"]), "--format", "github", "--no-history",
                              env={"GITHUB_STEP_SUMMARY": str(tmp_path / "no-such-dir" / "summary.md")})
    assert code == 0 and "Traceback" not in err, err[-400:]
    lines = out.splitlines()
    assert lines[0].startswith("::error ") and "zero-grad-reduced-twice" in lines[0] and lines[-1] == "vlkb: known failure"
    assert "::warning title=vlkb::the job summary was not written: No such file or directory" in lines


@pytest.mark.parametrize("fail_on,codes", [
    ("known", {"known-zero2": 1, "unknown": 0, "clean-explained": 0}),
    ("unknown", {"known-zero2": 0, "unknown": 1, "clean-explained": 0}),
    ("any", {"known-zero2": 1, "unknown": 1, "clean-explained": 0}),
    ("never", {"known-zero2": 0, "unknown": 0, "clean-explained": 0}),
])
def test_fail_on(run_vlkb, fail_on, codes):
    for name, want in codes.items():
        code, _, err = run_vlkb("diagnose", str(CASES[name]), "--fail-on", fail_on, "--no-history", "--format", "json")
        assert code == want, (name, fail_on, err)


# Lines a fork could put in its log to attack the triage comment.
HOSTILE = "\n".join([
    "Traceback (most recent call last):",
    '  File "/w/train.py", line 1, in <module>',
    "RuntimeError: @maintainers @org/team see https://evil.example/x and www.evil.example "
    "<img src=x onerror=alert(1)> <!-- vlkb-triage --> [click](javascript:alert(1)) ``` </details>",
    "```",
    "````````",
    "</details><!-- vlkb-triage -->",
    "\u202eevil\u202c @everyone",
]) + "\n"


def _outside_fences(md: str) -> str:
    return re.sub(r"^(`{3,})text\n.*?\n\1$", "", md, flags=re.M | re.S)


def test_hostile_log_renders_inert_markdown(engine, tmp_path):
    log = tmp_path / "hostile.log"
    log.write_text(HOSTILE, encoding="utf-8")
    md = markdown.render(engine.diagnose([str(log)]))
    assert md.count(markdown.MARKER) == 1 and md.startswith(markdown.MARKER + "\n")
    assert "<!--" not in md.replace(markdown.MARKER, "", 1)
    assert "\u202e" not in md
    fences = re.findall(r"^(`{3,})text\n(.*?)\n\1$", md, flags=re.M | re.S)
    assert fences, "the evidence is fenced"
    for fence, body in fences:
        assert max((len(r) for r in re.findall(r"`+", body)), default=0) < len(fence)
    outside = _outside_fences(md).replace(markdown.MARKER, "", 1)
    assert not re.search(r"@(?!\u200b)\w", outside), "a mention outside a fence would notify"
    assert not re.search(r"<(?!/?(details|summary|sub)>)[a-zA-Z/!]", outside), "raw HTML outside a fence"
    assert "https://evil" not in outside and "www.evil" not in outside and "](javascript" not in outside
    assert outside.count("<details>") == outside.count("</details>")


def test_the_comment_stays_under_64kb_for_a_1gb_log(engine, tmp_path):
    """1 GiB of training noise with, every 100 MiB, 400 distinct failures carrying 2 KB lines, backtick
    runs and mentions: the comment fits, its fences close, annotations and SARIF stay small."""
    log = tmp_path / "huge.log"
    noise = "".join(f"[INFO|trainer.py:2200] 2025-01-01 00:00:00,000 >> {{'loss': 1.{i % 97}, 'epoch': 0.{i}}}\n"
                    for i in range(12_000)).encode()
    hostile = "".join(f"step {i}\nTraceback (most recent call last):\n  File \"/w/m{i}.py\", line 1, in f{i}\n"
                      f"RuntimeError: {'`' * 50} failure {i} {'x' * 2000} @here\n" for i in range(400)).encode()
    with open(log, "wb") as f:
        written = 0
        while written < 1 << 30:
            chunk = hostile if written % (100 << 20) < len(noise) else noise
            written += f.write(chunk)
    d = engine.diagnose([str(log)])
    md = markdown.render(d)
    assert len(md.encode()) < 64_000 and md.startswith(markdown.MARKER)
    for fence, body in re.findall(r"^(`{3,})text\n(.*?)\n\1$", md, flags=re.M | re.S):
        assert max((len(r) for r in re.findall(r"`+", body)), default=0) < len(fence)
    assert len(github.render(d).splitlines()) <= github.MAX_ANNOTATIONS + 1
    assert len(sarif.render(d, Context(tuple(engine.entries))).encode()) < 1_000_000
    assert d.stats.bytes >= 1 << 30 and len(d.incidents) >= 400
    json_.render(d)


def test_every_format_is_one_registry_line_and_a_cli_choice(engine):
    """`--format` offers exactly the registry's formats, and each renders through the one entry point."""
    from vlkb.analyzer.report import FORMATS, render
    from vlkb.cli import diagnose

    fmt = next(p for p in diagnose.params if p.name == "fmt")
    assert list(fmt.type.choices) == list(FORMATS)
    d = engine.diagnose([str(CASES["known-zero2"])])
    outs = {name: render(name, d, Context(tuple(engine.entries))) for name in FORMATS}
    assert json.loads(outs["json"])["verdict"] == json.loads(outs["sarif"])["runs"][0]["results"][0]["properties"]["verdict"]
    assert all(outs.values())


@pytest.mark.parametrize("confidence,word", [(1.0, "matches"), (0.9, "matches"), (0.89, "likely"), (0.75, "likely"),
                                             (0.74, "possibly"), (0.61, "possibly")])
def test_the_confidence_word_follows_the_number(confidence, word):
    """0.49 and 1.00 are not both headed alike (issue 16): every format prints the same word."""
    from vlkb.analyzer.report import strength

    assert strength(confidence) == word


def test_every_format_says_how_sure_it_is(engine):
    from vlkb.analyzer.report import render, strength

    d = engine.diagnose([str(CASES["known-ranks"])])
    word = strength(d.named.confidence)
    assert all(f"{word}: confidence {d.named.confidence:.2f}" in render(f, d).replace("*", "") for f in ("text", "markdown", "github"))
    assert json.loads(render("json", d))["matches"][0]["strength"] == word
