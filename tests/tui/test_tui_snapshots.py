"""SVG snapshots of every screen at 80x24 and 120x40 (pytest-textual-snapshot), on real logs, with the
input cursor's blink frozen. After an intended change to a screen or to the KB:
    python -m pytest tests/tui/test_tui_snapshots.py --snapshot-update   # then review the SVGs
"""
import shutil
import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from vlkb.tui.app import VlkbApp
from vlkb.tui.log_view import LogView

from .helpers import FAKE_VERIFY, settle

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def _revealed(app) -> bool:
    """Every log pane on the screen shows its cursor's line: the pane scrolls to it after a refresh
    (LogView._reveal), which a loaded machine can run after the keys are pressed (a help screen over
    an unscrolled log, once in a CI run)."""
    for view in app.screen.query(LogView):
        top, height = view.scroll_offset.y, view.scrollable_content_region.height
        if view.row_count and height and not top <= view.cursor < top + height:
            return False
    return True


def _loaded(app) -> bool:
    """Every log pane on the screen holds its log and shows its cursor's line. Before a key that opens
    a screen over the log: a pane covered before its log arrived is never scrolled (test_help[120x40]
    once more under --snapshot-update, and in a CI run where waiting after the key never ended)."""
    return all(view.row_count for view in app.screen.query(LogView)) and _revealed(app)


async def _until(app, pilot, ready) -> None:
    for _ in range(400):
        if ready(app):
            return
        await pilot.pause(0.05)
    assert ready(app), "the screen never reached the state the snapshot is of"


def before(*keys, tab=None, wait=None):
    async def run_before(pilot):
        app = pilot.app
        await settle(app, pilot)
        await _until(app, pilot, _loaded if keys else _revealed)
        if tab:
            app.screen.query_one("#tabs").active = tab
        if keys:
            await pilot.press(*keys)
            await settle(app, pilot)
        if wait:
            await _until(app, pilot, wait)
        for widget in app.screen.query(Input):
            widget.cursor_blink = False
        await settle(app, pilot)
    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_kb_browser(snap_compare, size):
    assert snap_compare(VlkbApp(), terminal_size=size, run_before=before())


@pytest.mark.parametrize("size", SIZES)
def test_kb_search(snap_compare, size):
    async def run_before(pilot):
        await before()(pilot)
        pilot.app.screen.query_one("#q").value = "nan bf16"  # typing is the pilot tests' job
        await before()(pilot)
    assert snap_compare(VlkbApp(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_diagnosis_known(snap_compare, logs, size):
    assert snap_compare(VlkbApp([logs["known-ranks"]]), terminal_size=size, run_before=before())


@pytest.mark.parametrize("size", SIZES)
def test_diagnosis_incidents_and_rank_filter(snap_compare, logs, size):
    assert snap_compare(VlkbApp([logs["known-ranks"]]), terminal_size=size,
                        run_before=before("r", tab="incidents-tab"))


@pytest.mark.parametrize("size", SIZES)
def test_diagnosis_unknown(snap_compare, logs, size):
    assert snap_compare(VlkbApp([logs["unknown"]]), terminal_size=size, run_before=before())


@pytest.mark.parametrize("size", SIZES)
def test_new_entry(snap_compare, logs, size):
    assert snap_compare(VlkbApp([logs["unknown"]]), terminal_size=size, run_before=before("a"))


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare, logs, size):
    assert snap_compare(VlkbApp([logs["known"]]), terminal_size=size, run_before=before("question_mark"))


@pytest.mark.parametrize("size", SIZES)
def test_verify(snap_compare, logs, size):
    shutil.copy(FAKE_VERIFY, "fake_verify.py")  # relative paths: the panel shows the command line
    Path("gate").touch()
    app = VlkbApp([logs["known"]], verify_command=lambda entry_id: [sys.executable, "fake_verify.py", entry_id, "gate"])
    def done(app) -> bool:  # the verdict arrived and the table it fills is on the screen map
        return getattr(app.screen, "result", None) is not None and app.screen.query_one(DataTable).region.height > 0
    assert snap_compare(app, terminal_size=size, run_before=before("v", wait=done))
