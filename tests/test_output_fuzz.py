"""Property (issue 15): whatever a stranger's log and its file name hold (escape sequences, C1
controls, carriage returns, forged workflow commands, HTML, mentions, bidi overrides, bytes that are
no UTF-8, in the name too), every output format renders without an exception and stays inert in its
sink: the terminal, a GitHub comment, the Actions runner, a JSON or SARIF reader."""
import json
import os
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vlkb.analyzer.report import FORMATS, Context, render
from vlkb.analyzer.report import markdown

from test_parser_properties import FRAGMENTS, PREFIXES

HOSTILE = [
    b"\x1b]52;c;ZXZpbA==\x07", b"\x1b[2J\x1b[H", "\u009b31m".encode(), "\u009d0;title\x07".encode(), b"\r",
    b"::set-env name=PATH::/tmp", b"::error file=x.py,line=1::forged", b"%0A::warning::also forged",
    b"@maintainers @org/team", b"<img src=x onerror=alert(1)>", b"<!-- vlkb-triage -->", b"```", b"| a | b |",
    "\u202eevil\u202c".encode(), b"[bold red]markup[/]", b"\xed\xa0\x80 lone surrogate bytes", b"\xff\xfe",
]
FAILURE = [b"Traceback (most recent call last):", b'  File "/w/train.py", line 3, in <module>',
           b"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"]
NAME_CHARS = st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",))
C0_C1 = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _outside_fences(md: str) -> str:
    return re.sub(r"^(`{3,})text\n.*?\n\1$", "", md, flags=re.M | re.S)


def check_sink(fmt: str, out: str) -> None:
    out.encode("utf-8")  # every sink takes UTF-8: no lone surrogate from a name that was not UTF-8
    if fmt == "text":
        assert not C0_C1.search(out), "a control character reaches the terminal"
    elif fmt in ("json", "sarif"):
        json.loads(out)
    elif fmt == "github":
        *commands, last = out.split("\n")
        assert last.startswith("vlkb: ") and "\r" not in out
        assert all(re.match(r"^::(error|warning|notice) [^:\n]*::", c) for c in commands), commands
    elif fmt == "markdown":
        assert out.startswith(markdown.MARKER + "\n") and out.count(markdown.MARKER) == 1
        assert "\r" not in out and not re.search(r"^::", out, flags=re.M), "a workflow command on its own line"
        outside = _outside_fences(out).replace(markdown.MARKER, "", 1)
        assert "\u202e" not in out and "<!--" not in outside
        assert not re.search(r"@(?!\u200b)\w", outside), "a mention outside a fence would notify"
        assert not re.search(r"<(?!/?(details|summary|sub)>|https://)[a-zA-Z/!]", outside), "raw HTML outside a fence"


lines = st.lists(st.tuples(st.sampled_from(PREFIXES), st.one_of(
    st.sampled_from(FRAGMENTS + HOSTILE), st.binary(max_size=30))), max_size=25)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines, name=st.text(NAME_CHARS, min_size=1, max_size=24), raw_byte=st.booleans())
@example(lines=[(b"", h) for h in HOSTILE], name="evil\x1b]0;pwn\x07\nname\u009b[x]", raw_byte=True)
def test_every_format_stays_inert_whatever_the_log_and_its_name(engine, tmp_path_factory, monkeypatch, lines, name,
                                                               raw_byte):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)  # the GitHub format's side file: not here
    folder = tmp_path_factory.mktemp("f")
    data = b"\n".join(p + f for p, f in lines) + b"\n" + b"\n".join(FAILURE) + b"\n"
    fname = os.fsencode(name)[:200] + (b"\xff" if raw_byte else b"") + b".log"
    if fname in (b".log", b"..log"):
        fname = b"x" + fname
    with open(os.path.join(os.fsencode(folder), fname), "wb") as f:
        f.write(data)
    d = engine.diagnose([str(folder)])  # the name is found by walking the folder, as a stranger's bundle is
    assert d.verdict in ("known", "unknown")  # the failure at the end is always seen
    for fmt in FORMATS:
        check_sink(fmt, render(fmt, d, Context(tuple(engine.entries))))
