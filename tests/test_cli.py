"""The command line contract: help, exit codes, the JSON schema, inert rendering of log text."""
import json
import os
import subprocess
import sys

import click
import pytest

from conftest import SAMPLES
from vlkb.cli import LAZY, cli

SAMPLE = str(SAMPLES / "ms-swift-minicpmv-dpo-zero2.log")


def _commands(group, prefix=()):
    if group is cli:  # the lazily imported commands too, whatever this process imported before
        for name in LAZY:
            cli.get_command(click.Context(cli), name)
    for name, cmd in group.commands.items():
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, prefix + (name,))


@pytest.mark.parametrize("path,cmd", list(_commands(cli)), ids=lambda x: " ".join(x) if isinstance(x, tuple) else "")
def test_every_command_has_help_with_an_example(path, cmd):
    assert cmd.help and "Example" in cmd.help, f"vlkb {' '.join(path)} needs help text with an Example"


@pytest.mark.parametrize("name", sorted(LAZY))
def test_help_lists_a_lazy_command_by_its_own_help(name):
    """`vlkb --help` shortens the paragraph cli.LAZY keeps for a command it has not imported: the same
    words, at every width, as click takes from the command's own help."""
    import importlib

    cmd = getattr(importlib.import_module(f"vlkb.{LAZY[name][0]}"), name)
    stored = click.Command(name, help=LAZY[name][1])
    for limit in (20, 45, 60, 74, 200, 1000):
        assert stored.get_short_help_str(limit) == cmd.get_short_help_str(limit), limit


def test_help_imports_no_other_command():
    code = ("import sys\nfrom vlkb.cli import LAZY, main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('loaded:', [m for m, _ in LAZY.values() if 'vlkb.' + m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert "Commands:" in out and "  verify " in out and "loaded: []" in out, out


def test_dash_h_works(run_vlkb):
    code, out, _ = run_vlkb("diagnose", "-h")
    assert code == 0 and "Examples:" in out and "--format" in out


def test_exit_codes(run_vlkb, tmp_path):
    assert run_vlkb("diagnose", SAMPLE)[0] == 0
    healthy = tmp_path / "ok.log"
    healthy.write_text("{'loss': 1.2, 'grad_norm': 3.1, 'epoch': 0.1}\n")
    assert run_vlkb("diagnose", str(healthy))[0] == 1
    code, _, err = run_vlkb("diagnose", "--format", "yaml", SAMPLE)
    assert code == 2 and "yaml" in err
    code, _, err = run_vlkb("diagnose", "--kb", str(tmp_path / "missing-dir"), SAMPLE)
    assert code == 2


def test_json_contract(run_vlkb):
    code, out, _ = run_vlkb("diagnose", SAMPLE, "--format", "json")
    d = json.loads(out)
    assert d["schema"] == "vlkb.diagnosis/1" and d["verdict"] == "known"
    m = d["matches"][0]
    assert set(m) >= {"entry", "family", "title", "confidence", "incident", "evidence", "root_cause",
                      "fix", "sources", "signals"}
    assert m["entry"] == "zero-grad-reduced-twice" and 0 < m["confidence"] <= 1
    assert m["evidence"][0] == {"path": SAMPLE, "line": 30, "text": m["evidence"][0]["text"], "rank": None}
    assert {s["name"] for s in m["signals"]} >= {"regex"}
    inc = d["incidents"][0]
    assert set(inc) >= {"kind", "exception", "message", "path", "line_start", "line_end", "ranks", "root"}
    assert inc["root"] and inc["exception"] == "AssertionError"


def test_unknown_shows_the_root_incident_and_nearest_entries(run_vlkb):
    from vlkb.kb.fixtures import parse, unknown_dir
    f = parse(unknown_dir() / "torch-restore-location-mps.log")
    code, out, _ = run_vlkb("diagnose", "-", "--format", "json", stdin=f.text.encode())
    d = json.loads(out)
    assert code == 1 and d["verdict"] == "unknown" and d["incidents"][0]["root"]
    assert all(m["confidence"] < d["threshold"] for m in d["matches"])


def test_log_text_is_inert_in_text_and_markdown(run_vlkb, tmp_path):
    hostile = tmp_path / "hostile.log"
    hostile.write_text("RuntimeError: [bold red]boom[/] @maintainers <img src=x onerror=alert(1)> ````\n"
                       "\x1b]0;pwned\x07\x1b[2J tail \u009b2J \u009d0;pwned\u009c\n", encoding="utf-8")
    code, out, _ = run_vlkb("diagnose", str(hostile), "--color")
    assert "[bold red]boom[/]" in out and "\x1b]0;" not in out and "\x1b[2J" not in out
    # C1 controls (CSI, OSC, ST as single code points) are dropped too, in every format
    for fmt in ("text", "markdown", "json", "github", "sarif"):
        code, out, _ = run_vlkb("diagnose", str(hostile), "--format", fmt)
        assert not any("\x80" <= ch <= "\x9f" for ch in out), fmt
    code, out, _ = run_vlkb("diagnose", str(hostile), "--format", "markdown")
    assert out.startswith("<!-- vlkb-triage -->")
    fence = out.split("text\n")[0].splitlines()[-1]
    assert len(fence) >= 5  # longer than the log's own run of four backticks
    outside = out.split(fence + "text\n")[0] + out.split(fence + "text\n")[1].split("\n" + fence + "\n", 1)[1]
    # inside a fence GitHub neither pings nor renders HTML; outside it, log text must be defused
    assert "@maintainers" not in outside and "<img" not in outside


def test_a_hostile_file_name_is_shown_escaped_in_every_format(run_vlkb, tmp_path):
    """A file name is untrusted too: its control characters (an escape sequence, a bell, a newline, a
    C1 CSI) are shown escaped wherever the name appears, and an error about it is one line (issue 15)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "evil\x1b]0;pwn\x07\nname\u009b.log").write_text(
        "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nRuntimeError: boom\n", encoding="utf-8")
    for fmt in ("text", "markdown", "json", "github", "sarif"):
        code, out, _ = run_vlkb("diagnose", str(folder), "--format", fmt)
        assert "evil" in out and not any(c in out for c in "\x1b\x07\u009b"), fmt
        assert "\nname" not in out.replace("\\nname", ""), fmt  # the newline is escaped, not printed
    code, _, err = run_vlkb("diagnose", str(tmp_path / "no\x1b[2Jsuch.log"))
    assert code == 2 and "\x1b" not in err and err.count("\n") == 1


def test_color_takes_when_as_gnu_tools_do(run_vlkb):
    """--color=auto|always|never (issue 16); a bare --color is always, before or after the log; --no-color
    is never; auto is off when stdout is not a terminal (as here)."""
    for args, colored in [(["--color=always"], True), (["--color", "always"], True), (["--color"], True),
                          (["--color=never"], False), (["--no-color"], False), (["--color=auto"], False), ([], False)]:
        for order in (args + [SAMPLE], [SAMPLE] + args):
            code, out, err = run_vlkb("diagnose", *order)
            assert code == 0 and ("\x1b[" in out) == colored, (order, err)
    code, _, err = run_vlkb("diagnose", SAMPLE, "--color=sometimes")
    assert code == 2 and "sometimes" in err


def test_no_color_env(run_vlkb):
    code, out, _ = run_vlkb("diagnose", SAMPLE, env={"NO_COLOR": "1"})
    assert "\x1b[" not in out and "Root cause:" in out


def test_kb_list_and_show(run_vlkb):
    code, out, _ = run_vlkb("kb", "list")
    from vlkb.kb import load
    assert code == 0 and len(out.splitlines()) == len(load())
    code, out, _ = run_vlkb("kb", "show", "loss-nan")
    assert code == 0 and "## Fix" in out and "reduce_bucket_size" in out
    assert run_vlkb("kb", "show", "no-such-entry")[0] == 2


def test_markdown_stays_under_64kb_with_huge_lines(run_vlkb, tmp_path):
    p = tmp_path / "wide.log"
    p.write_text("Traceback (most recent call last):\n" +
                 "".join(f'  File "/x/{"d" * 3000}{i}.py", line {i}, in f{i}\n    call()\n' for i in range(400)) +
                 "RuntimeError: " + "`" * 2000 + "\n")
    code, out, _ = run_vlkb("diagnose", str(p), "--format", "markdown")
    import re
    assert len(out.encode()) < 64_000
    m = re.search(r"^(`{3,})text\n(.*?)\n\1$", out, re.M | re.S)
    assert m, "the evidence fence must be closed, never cut"
    assert max((len(r) for r in re.findall(r"`+", m.group(2))), default=0) < len(m.group(1))


def test_top_is_honoured_by_every_format(engine, tmp_path):
    """--top N (issue 16): after the named entry, the next candidates above the noise floor are listed
    ("Also considered" in text, Markdown and the GitHub annotation, alsoConsidered in SARIF, the
    matches in JSON), at most N in all; --top 1 lists none."""
    from vlkb.analyzer.diagnose import NEAREST_FLOOR
    from vlkb.analyzer.report import Context, github, markdown, render, sarif, text
    from vlkb.kb import fixtures as fx
    from vlkb.kb.loader import shipped_dir

    for p in sorted(shipped_dir().glob("*/*.pos-*.log")):
        log = tmp_path / "x.log"
        log.write_text(fx.parse(p).text, encoding="utf-8")
        d = engine.diagnose([str(log)], top=5)
        if d.runners_up:
            break
    else:
        raise AssertionError("no fixture has a runner-up above the floor")
    assert all(s.confidence >= NEAREST_FLOOR for s in d.runners_up) and len(d.runners_up) <= 4
    for fmt in (text.render, markdown.render, github.render):
        out = fmt(d)
        assert "Also considered" in out and all(s.entry.id in out.split("Also considered")[1] for s in d.runners_up)
    also = json.loads(sarif.render(d, Context(tuple(engine.entries))))["runs"][0]["results"][0]["properties"]["alsoConsidered"]
    assert [a["entry"] for a in also] == [s.entry.id for s in d.runners_up]
    assert len(json.loads(render("json", d))["matches"]) == len(d.matches) <= 5
    assert len(json.loads(render("json", engine.diagnose([str(log)], top=1)))["matches"]) == 1
    one = engine.diagnose([str(log)], top=1)
    assert all("Also considered" not in render(f, one) for f in ("text", "markdown", "github"))


def test_the_at_line_is_the_exception_line(run_vlkb):
    """The headline's 'at' points at the line a user would quote, the exception (line 30 of the sample),
    not the traceback's first line (issue 16); text and Markdown agree."""
    from pathlib import Path

    lines = Path(SAMPLE).read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines, 1) if line.startswith("AssertionError: The parameter"))
    _, out, _ = run_vlkb("diagnose", SAMPLE, "--no-history")
    assert f"at {SAMPLE}:{at}" in out
    _, md, _ = run_vlkb("diagnose", SAMPLE, "--no-history", "--format", "markdown")
    assert f"Failure at `{SAMPLE}:{at}`" in md


def test_shell_completion_offers_entry_ids(run_vlkb, tmp_path):
    """`vlkb kb show zero-<TAB>` and `vlkb verify <TAB>` complete entry ids, --kb entries included
    (the README says how to turn completion on)."""
    env = {"_VLKB_COMPLETE": "bash_complete", "COMP_WORDS": "vlkb kb show zero-gr", "COMP_CWORD": "3"}
    _, out, _ = run_vlkb(env=env)
    assert out.split() == ["plain,zero-grad-reduced-twice"]
    mine = tmp_path / "team" / "our-own-failure"
    mine.mkdir(parents=True)
    (mine / "our-own-failure.yaml").write_text("id: our-own-failure\n")
    env = {"_VLKB_COMPLETE": "bash_complete", "COMP_WORDS": f"vlkb verify --kb {tmp_path / 'team'} our-", "COMP_CWORD": "4"}
    _, out, _ = run_vlkb(env=env)
    assert out.split() == ["plain,our-own-failure"]


def test_human_reports_cite_three_sources_and_point_to_the_rest(engine, tmp_path):
    """An entry gathers dozens of public reports (cuda-oom over 40): text and Markdown cite its first
    MAX_SOURCES and say how many more `vlkb kb show` lists; JSON keeps them all."""
    import re

    from vlkb.analyzer.report import MAX_SOURCES, render
    from vlkb.kb import fixtures as fx
    from vlkb.kb.loader import shipped_dir

    log = tmp_path / "x.log"
    log.write_text(fx.parse(shipped_dir() / "cuda-oom" / "cuda-oom.pos-fastchat-qlora-wrapped.log").text)
    d = engine.diagnose([str(log)])
    entry = d.named.entry
    assert entry.id == "cuda-oom" and len(entry.sources) > MAX_SOURCES + 1
    more = f"and {len(entry.sources) - MAX_SOURCES} more: "
    for fmt in ("text", "markdown"):
        line = next(l for l in render(fmt, d).splitlines() if l.startswith("Sources: "))
        assert re.findall(r"https?://\S+?(?=>|\s|$)", line) == [s["url"] for s in entry.sources[:MAX_SOURCES]]
        assert more in line and "vlkb kb show cuda-oom" in line
    cited = json.loads(render("json", d))["matches"][0]
    assert len(cited["sources"]) == len(entry.sources)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [("diagnose", SAMPLE), ("diagnose", SAMPLE, "--format", "markdown"),
                                  ("kb", "list")])
def test_a_full_disk_under_stdout_is_an_error_not_a_traceback(args):
    import subprocess
    with open("/dev/full", "w") as full:
        cp = subprocess.run([sys.executable, "-m", "vlkb", *args], stdout=full, stderr=subprocess.PIPE, text=True,
                            timeout=120)
    assert cp.returncode == 2 and "Traceback" not in cp.stderr
    assert "cannot write the report to standard output (No space left on device)" in cp.stderr
