"""Helpers of the TUI tests: the real logs they open, a settled app, the screen as text, the fake
verify command."""
import io
from pathlib import Path

from rich.console import Console

ROOT = Path(__file__).resolve().parents[2]
FAKE_VERIFY = Path(__file__).with_name("fake_verify.py")
LOGS = {
    "known-ranks": ROOT / "data/samples/llamafactory-minicpmv-zero2-ranks.log",
    "known": ROOT / "data/samples/ms-swift-minicpmv-dpo-zero2.log",
    "unknown": ROOT / "kb/unknown/torch-restore-location-mps.log",
}


async def settle(app, pilot, rounds: int = 3) -> None:
    """Let workers (diagnosis, index, search, filter) finish and the screen repaint."""
    for _ in range(rounds):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


def screen_text(app) -> str:
    """The current screen of a running app as plain text: what a user sees."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True,
                      legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()
