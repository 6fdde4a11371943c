"""The verify panel, with a fast fake `vlkb verify` injected (tests/tui/fake_verify.py speaks the
same protocol; the real repros run in tests/test_verify.py): output streams while the command runs,
it ends with the verdict table, and the cancel key stops it."""
import asyncio
import sys

from .helpers import FAKE_VERIFY, screen_text, settle
from textual.binding import Binding
from textual.widgets import DataTable, Log

from vlkb.tui.app import VlkbApp, verify_argv
from vlkb.tui.diagnosis_screen import DiagnosisScreen
from vlkb.tui.help_screen import HelpScreen, groups
from vlkb.tui.kb_screen import KBScreen
from vlkb.tui.verify_screen import VerifyScreen


async def until(pilot, check, timeout=20.0):
    for _ in range(int(timeout / 0.05)):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out waiting")


def run(inputs, test, command, size=(100, 30)):
    async def main():
        app = VlkbApp(inputs, verify_command=command)
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            await test(app, pilot)
    asyncio.run(main())


def test_verify_streams_then_ends_with_the_verdict(logs, fake_verify):
    command, gate = fake_verify

    async def test(app, pilot):
        assert isinstance(app.screen, DiagnosisScreen)
        await pilot.press("v")
        screen = app.screen
        assert isinstance(screen, VerifyScreen) and screen.entry_id == "zero-grad-reduced-twice"
        log = screen.query_one(Log)
        await until(pilot, lambda: any(line.startswith("[before]") for line in log.lines))
        assert screen.proc.poll() is None and screen.result is None  # streamed while still running
        assert not screen.query_one(DataTable).display
        assert "[bold]not markup[/] red" in "\n".join(log.lines)  # literal, escapes stripped
        gate.touch()
        await until(pilot, lambda: screen.result is not None)
        await pilot.pause()
        assert screen.result.exit_code == 0 and screen.result.verdicts[0]["ok"]
        table = screen.query_one(DataTable)
        assert table.display and table.row_count == 1
        assert table.get_row_at(0) == ["zero-grad-reduced-twice", "yes", "itself 1.00", "yes", "1 / 0"]
        text = screen_text(app)
        assert "REPRODUCED AND FIXED" in text and "after exit 0" in text
        await pilot.press("escape")
        assert isinstance(app.screen, DiagnosisScreen)
    run([logs["known"]], test, command)


def test_cancel_stops_the_command(logs):
    async def test(app, pilot):
        await pilot.press("v")
        screen = app.screen
        await until(pilot, lambda: any(line.startswith("[before]") for line in screen.query_one(Log).lines))
        await pilot.press("c")
        await until(pilot, lambda: screen.result is not None)
        assert screen.result.cancelled and screen.proc.poll() is not None
        assert "CANCELLED" in screen_text(app)
    run([logs["known"]], test, lambda entry_id: [sys.executable, str(FAKE_VERIFY), entry_id, "hang"])


def test_a_command_that_gives_no_verdict_says_so(logs):
    async def test(app, pilot):
        await pilot.press("v")
        screen = app.screen
        await until(pilot, lambda: screen.result is not None)
        assert screen.result.exit_code == 3 and "NO VERDICT" in screen_text(app)
    run([logs["known"]], test, lambda entry_id: [sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"])


def test_verify_from_the_kb_browser(fake_verify):
    command, gate = fake_verify
    gate.touch()

    async def test(app, pilot):
        screen = app.screen
        assert isinstance(screen, KBScreen)
        screen.query_one("#entries").highlighted = screen.shown.index("cuda-oom")
        await pilot.press("v")  # no repro for this one: a notice, no panel
        assert app.screen is screen
        screen.query_one("#entries").highlighted = screen.shown.index("tensor-does-not-require-grad")
        await pilot.press("v")
        assert isinstance(app.screen, VerifyScreen) and app.screen.entry_id == "tensor-does-not-require-grad"
        await until(pilot, lambda: app.screen.result is not None)
    run([], test, command)


def test_the_real_command_streams_and_reports_json():
    """The verify screen's child: vlkb verify streaming JSON, started without the working directory
    on its path (vlkb.subproc)."""
    argv = verify_argv(["my-kb"])("loss-nan")
    assert argv[-7:] == ["verify", "loss-nan", "--stream", "--format", "json", "--kb", "my-kb"]
    assert argv[1:3] == ["-P", "-m"] or "runpy.run_module('vlkb'" in argv[2]


def test_help_lists_every_binding(logs):
    async def test(app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.screen, DiagnosisScreen)
        return text

    async def main():
        app = VlkbApp([logs["known"]])
        async with app.run_test(size=(120, 90)) as pilot:
            await settle(app, pilot)
            text = await test(app, pilot)
        for where, bindings in groups():
            assert where in text
            for b in Binding.make_bindings(bindings):
                assert b.description in text, b
                assert app.get_key_display(b) in text, b
    asyncio.run(main())
