"""The diagnosis screen, driven headless on real logs: it lands on the root line, walks the evidence,
filters by rank, searches, jumps from incidents and facts, and shows log text literally."""
import asyncio
import gzip
import io
from pathlib import Path

from .helpers import screen_text, settle
from rich.console import Console
from textual.widgets import DataTable

from vlkb.analyzer.textnorm import who
from vlkb.tui.app import VlkbApp
from vlkb.tui.cause_view import cause
from vlkb.tui.diagnosis_screen import DiagnosisScreen
from vlkb.tui.incidents_tree import IncidentsTree
from vlkb.tui.inputs import Budget, prepare
from vlkb.tui.new_entry_screen import NewEntryScreen, suggest_id


def run(inputs, test, size=(100, 30), sources=None, **kw):
    async def main():
        app = VlkbApp(inputs, sources, **kw)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            assert isinstance(app.screen, DiagnosisScreen) and app.screen.diagnosis is not None
            await test(app, app.screen, app.screen.log_view, pilot)
    asyncio.run(main())


def _render(renderable, width=200) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def _landing(d):
    return d.subject.quoted.path, d.subject.quoted.lineno


def test_lands_on_the_root_line_with_the_verdict(logs):
    async def test(app, screen, log, pilot):
        d = screen.diagnosis
        assert d.verdict == "known" and d.named.entry.id == "zero-grad-reduced-twice"
        assert (log.path, log.line) == _landing(d)
        assert log.has_focus
        text = screen_text(app)
        assert "KNOWN FAILURE" in text and "zero-grad-reduced-twice" in text
        assert f"line {log.line}/" in text  # the pane's title says where the cursor is
        assert "▶" in text  # the root line is on screen, marked as evidence
    run([logs["known-ranks"]], test, size=(80, 24))


def test_at_80x24_the_fix_is_on_screen_without_a_key_and_digits_switch_tabs(logs):
    async def test(app, screen, log, pilot):
        text = screen_text(app)
        assert "Root cause:" in text and "\n Fix" in text
        assert "- LLaMA-Factory (YAML): keep `gradient_checkpointing` on" in text  # the run's own first step
        tabs = screen.query_one("#tabs")
        for key, tab in [("2", "matches-tab"), ("4", "run-tab"), ("1", "cause-tab")]:
            await pilot.press(key)
            assert tabs.active == tab
    run([logs["known-ranks"]], test, size=(80, 24))


def test_next_and_previous_evidence(logs):
    async def test(app, screen, log, pilot):
        marks = log.evidence
        assert len(marks) >= 2 and marks == sorted(marks)
        await pilot.press("home")
        assert log.line == 1
        seen = []
        for _ in marks:
            await pilot.press("right_square_bracket")
            seen.append(log.line)
        assert seen == marks
        await pilot.press("right_square_bracket")  # wraps to the first
        assert log.line == marks[0]
        await pilot.press("left_square_bracket")  # and back to the last
        assert log.line == marks[-1]
    run([logs["known"]], test)


def test_rank_filter_hides_other_ranks(logs):
    async def test(app, screen, log, pilot):
        assert len(log.ranks) >= 2
        await pilot.press("r")
        await settle(app, pilot)
        rank = log.ranks[0]
        assert log.rank == rank and log.rows is not None and 0 < log.row_count < log.index.count
        assert all(who(log.index.line(log.line_of(row))) == rank for row in range(log.row_count))
        text = screen_text(app)
        assert f"rank {rank}" in text
        others = [r for r in log.ranks if r != rank]
        pane = text[text.index("╭─ known-ranks.log"):]
        assert not any(f"[rank{r}]" in pane for r in others) and f"[rank{rank}]" in pane
        hidden = next(n for n in range(log.index.count) if who(log.index.line(n)) not in (rank, None))
        log.goto(log.path, hidden + 1)  # a line the filter hides: the filter steps aside
        assert log.rank is None and log.line == hidden + 1 and "rank filter off" in screen_text(app)
        await pilot.press("r")
        await settle(app, pilot)
        assert log.rank == rank
        for _ in log.ranks:  # every rank in turn, then all lines again
            await pilot.press("r")
            await settle(app, pilot)
        assert log.rank is None and log.rows is None and log.row_count == log.index.count
    run([logs["known-ranks"]], test)


def test_search_and_go_to_line(logs):
    async def test(app, screen, log, pilot):
        await pilot.press("g", *"5", "enter")
        assert log.line == 5 and log.has_focus
        await pilot.press("slash", *"deepspeed", "enter")  # lower case: any case
        await settle(app, pilot)
        first = log.line
        assert first > 5 and "deepspeed" in log.index.line(first - 1).lower()
        await pilot.press("n")
        await settle(app, pilot)
        assert log.line != first and "deepspeed" in log.index.line(log.line - 1).lower()
        await pilot.press("N")
        await settle(app, pilot)
        assert log.line == first
        await pilot.press("slash", *"NoSuchTextAnywhere", "enter")
        await settle(app, pilot)
        assert log.line == first and "no match" in screen_text(app)
    run([logs["known"]], test)


def test_the_report_is_saved_in_the_formats_that_make_a_file(logs, tmp_path):
    """`s` writes the diagnosis on screen through the formats' registry: Enter alone is the Markdown
    comment, a typed name picks another; a format that makes no file is refused with a word."""
    import json

    from vlkb.analyzer.report import markdown

    async def test(app, screen, log, pilot):
        await pilot.press("s", "enter")
        await settle(app, pilot)
        assert (tmp_path / "vlkb-report.md").read_text(encoding="utf-8") == markdown.render(screen.diagnosis)
        await pilot.press("s", *"JSON", "enter")
        await settle(app, pilot)
        saved = json.loads((tmp_path / "vlkb-report.json").read_text(encoding="utf-8"))
        assert saved["verdict"] == "known" and saved["matches"][0]["entry"] == "zero-grad-reduced-twice"
        await pilot.press("s", *"github", "enter")
        await settle(app, pilot)
        said = [n.message for n in app._notifications]  # the toasts (Textual keeps no public list)
        assert said[-1] == "Not saved: not a report format to save: 'github' (one of text, json, markdown, sarif)"
        assert said[0].startswith("Saved the markdown report to ") and said[0].endswith("vlkb-report.md")
        assert sorted(p.name for p in tmp_path.glob("vlkb-report*")) == ["vlkb-report.json", "vlkb-report.md"]
        assert log.has_focus  # the prompt closed, back on the log
    run([logs["known"]], test, size=(120, 30))


def test_a_report_that_cannot_be_written_is_a_word_not_a_crash(engine, tmp_path):
    from vlkb.tui import report_file
    from conftest import SAMPLES

    d = engine.diagnose([str(SAMPLES / "ms-swift-minicpmv-dpo-zero2.log")])
    try:
        report_file.save(d, engine.entries, "sarif", tmp_path / "no-such-dir")
    except OSError:
        pass
    else:
        raise AssertionError("a report saved into a missing directory")
    assert report_file.save(d, engine.entries, "sarif", tmp_path).name == "vlkb-report.sarif"
    assert list(report_file.choices()) == ["text", "json", "markdown", "sarif"]


def test_incidents_tree_and_facts_jump_to_their_lines(logs):
    async def test(app, screen, log, pilot):
        d = screen.diagnosis
        tree = screen.query_one(IncidentsTree)
        nodes = tree.root.children
        assert len(nodes) == len(d.incidents)
        assert nodes[0].is_expanded and not any(n.is_expanded for n in nodes[1:])
        # each node says what its incident is (root, cascade or kind) and where, ranks included: this
        # log's root is rank 2's traceback
        assert str(nodes[0].label).startswith("[root] ") and str(nodes[0].label).endswith("known-ranks.log:14 rank 2")
        for node, inc in zip(nodes[1:], d.incidents[1:]):
            tag = "cascade" if inc.cascade else inc.kind
            assert str(node.label).startswith(f"[{tag}] ") and str(node.label).endswith(inc.where[:200])
        leaf = nodes[0].children[2]
        tree.select_node(leaf)
        await settle(app, pilot)
        assert (log.path, log.line) == leaf.data
        facts = screen.query_one("#run", DataTable)
        assert facts.row_count >= 1
        screen.query_one("#tabs").active = "run-tab"
        facts.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert log.line == screen._facts[0].line.lineno
    run([logs["known-ranks"]], test)


def test_one_file_per_rank(logs, tmp_path):
    lines = Path(logs["known-ranks"]).read_text(encoding="utf-8").splitlines()
    (tmp_path / "head.log").write_text("\n".join(lines[:10]) + "\n", encoding="utf-8")

    async def test(app, screen, log, pilot):
        assert log.paths == ["head.log", logs["known-ranks"]]
        assert log.path == logs["known-ranks"]  # the root is in the second file
        await pilot.press("f")
        assert log.path == "head.log" and log.line == 1
        await pilot.press("right_square_bracket")  # no evidence in this file: a bell, no move
        assert log.line == 1
        await pilot.press("f")
        assert log.path == logs["known-ranks"]
    run(["head.log", logs["known-ranks"]], test)


def test_unknown_shows_the_root_and_scaffolds_an_entry(logs, tmp_path):
    async def test(app, screen, log, pilot):
        d = screen.diagnosis
        assert d.verdict == "unknown"
        text = screen_text(app)
        assert "UNKNOWN FAILURE" in text and "No KB entry explains" in text
        assert (log.path, log.line) == _landing(d)
        cause_text = _render(cause(d, {"verify": "v", "new": "a"}))  # what the Cause tab holds
        assert f"Quote this line\n{d.lead.quoted.lineno:>6}  {d.lead.quoted.text}" in cause_text  # the exception line
        assert "Raised in: " in cause_text and "Root incident" not in cause_text
        await pilot.press("a")
        await settle(app, pilot)
        assert isinstance(app.screen, NewEntryScreen)
        assert app.screen.query_one("#new-id").value == suggest_id(d.root.exception)
        app.screen.query_one("#new-id").value = "qwen2vl-needs-newer-transformers"
        app.screen.query_one("#new-dir").value = str(tmp_path / "kb-local")
        app.screen.query_one("#new-source").focus()
        await pilot.press("enter")
        await settle(app, pilot)
        written = app.screen.written
        assert [p.name for p in written][0] == "qwen2vl-needs-newer-transformers.yaml"
        assert all(p.exists() for p in written) and "wrote" in screen_text(app)
        await pilot.press("escape")
        assert app.screen is screen
    run([logs["unknown"]], test, size=(120, 40))


def test_suggested_ids_are_valid():
    assert suggest_id("RuntimeError") == "runtime-error-todo"
    assert suggest_id("torch.OutOfMemoryError".rsplit(".")[-1]) == "out-of-memory-error-todo"
    assert suggest_id(None) == "failure-todo"


def test_log_text_is_never_markup(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    hostile = ("[rank0]: Traceback (most recent call last):\n"
               '[rank0]:   File "train.py", line 3, in <module>\n'
               "[rank0]: ValueError: [bold]loss[/] is [red]nan[/red] at [/] step [link=http://x]7[/link]\n")
    Path("hostile.log").write_text("step 1 [b]ok[/b] \x1b[31mred\x1b[0m [/]\n" + hostile, encoding="utf-8")

    async def test(app, screen, log, pilot):
        text = screen_text(app)
        assert "[bold]loss[/] is [red]nan[/red] at [/] step [link=http://x]7[/link]" in text
        assert "step 1 [b]ok[/b] red [/]" in text and "\x1b" not in text
        await pilot.press("g", *"1", "enter")
        assert log.line == 1
    run(["hostile.log"], test, size=(120, 30))


def test_gzip_logs_are_shown_unpacked(logs, tmp_path):
    with gzip.open(tmp_path / "known.log.gz", "wb") as f:
        f.write(Path(logs["known"]).read_bytes())
    inputs, sources = prepare(["known.log.gz"], tmp_path)
    assert inputs == ["known.log.gz"] and Path(sources["known.log.gz"]).read_bytes() == Path(logs["known"]).read_bytes()

    async def test(app, screen, log, pilot):
        assert screen.diagnosis.verdict == "known" and log.path == "known.log.gz"
        assert "Traceback" in log.index.line(log.line - 1) or log.line in log.evidence
    run(inputs, test, sources=sources)


def test_a_gzip_bomb_is_unpacked_only_up_to_the_spool_limit_and_the_screen_says_so(logs, tmp_path):
    known = Path(logs["known"]).read_bytes()
    with gzip.open(tmp_path / "bomb.log.gz", "wb") as f:  # the real failure, then 8 MiB of blank lines
        f.write(known)
        for _ in range(8):
            f.write(b"\n" * (1 << 20))
    budget = Budget(len(known) + 4096)
    inputs, sources = prepare(["bomb.log.gz"], tmp_path, budget)
    assert Path(sources["bomb.log.gz"]).stat().st_size == len(known) + 4096
    assert budget.notes == [f"bomb.log.gz: the log pane shows its first {(len(known) + 4096) / 1024:.3g} KiB unpacked "
                            "(the spool limit, vlkb tui --spool-max); the diagnosis read all of it"]

    async def test(app, screen, log, pilot):
        assert screen.diagnosis.verdict == "known"  # the diagnosis streamed the whole .gz itself
        assert screen.diagnosis.stats.notes[0] == budget.notes[0]
        console = Console(width=400, record=True, file=io.StringIO())
        console.print(cause(screen.diagnosis, {"verify": "v", "new": "a"}))  # what the Cause tab holds
        assert f"note: {budget.notes[0]}" in console.export_text()
    run(inputs, test, sources=sources, notes=budget.notes)


def test_no_color_is_respected(logs, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")

    async def test(app, screen, log, pilot):
        import re

        assert app.no_color
        svg = app.export_screenshot()
        chrome = {"ff5f57", "febc2e", "28c840", "c5c8c6"}  # the SVG frame: its buttons, its title
        colours = set(re.findall(r"fill=\"#([0-9a-f]{6})\"", svg)) - chrome
        assert colours and all(c[0:2] == c[2:4] == c[4:6] for c in colours), colours  # greys only
    run([logs["known"]], test)


def test_the_kb_browser_opens_on_the_diagnosed_entry(logs):
    """'b' from a diagnosis opens the KB browser on the entry it names (issue 16), with the word for
    how sure the diagnosis is beside its confidence."""
    from vlkb.analyzer.report import strength
    from vlkb.tui.kb_screen import KBScreen

    async def test(app, screen, log, pilot):
        named = screen.diagnosis.named
        assert f"{strength(named.confidence)}: confidence {named.confidence:.2f}" in screen_text(app)
        await pilot.press("b")
        await settle(app, pilot)
        assert isinstance(app.screen, KBScreen)
        options = app.screen.query_one("#entries")
        assert options.get_option_at_index(options.highlighted).id == named.entry.id
    run([logs["known-ranks"]], test)


def test_the_similar_tab_lists_public_reports_of_the_failure(tmp_path, monkeypatch):
    # dddd_trainer#32 (a failure no entry names) and a record of it the user added: the tab shows it
    root = Path(__file__).resolve().parents[2]
    from vlkb import report_records
    from vlkb.kb import fixtures as fx

    monkeypatch.setenv("VLKB_HOME", str(tmp_path / "home"))
    log = tmp_path / "restore.log"
    log.write_text(fx.parse(root / "kb" / "unknown" / "torch-restore-location-mps.log").text, encoding="utf-8")
    report_records.append_user_record({"url": "https://github.com/sml2h3/dddd_trainer/issues/32",
                                       "title": "mps checkpoint",
                                       "error": "RuntimeError: don't know how to restore data location of "
                                                "torch.storage.UntypedStorage (tagged with mps:0)",
                                       "fix": {"kind": "fix", "text": "load with map_location='cpu'"}})

    async def test(app, screen, log_view, pilot):
        d = screen.diagnosis
        assert d.verdict == "unknown" and d.similar and d.similar[0].report.title == "mps checkpoint"
        screen.query_one("#tabs").active = "similar-tab"
        await pilot.pause()
        text = screen_text(app)
        assert "Similar public reports" in text and "mps checkpoint" in text and "map_location" in text
    run([str(log)], test, size=(120, 40))
