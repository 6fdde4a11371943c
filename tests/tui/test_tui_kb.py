"""The KB browser, driven headless: search narrows the list as you type, filters narrow it, an entry
shows its fixed sections and its example fixture with the matched line highlighted."""
import asyncio

from .helpers import screen_text, settle
from textual.widgets import Markdown, Select

from vlkb.kb import fixtures as fx
from vlkb.tui.app import VlkbApp
from vlkb.tui.entry_view import EntryView
from vlkb.tui.kb_screen import KBScreen


def run(test, size=(100, 30)):
    async def main():
        app = VlkbApp()
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            assert isinstance(app.screen, KBScreen)
            await test(app, pilot)
    asyncio.run(main())


def test_search_narrows_the_list_as_you_type():
    async def test(app, pilot):
        everything = app.screen.shown
        assert len(everything) == len(app.engine.entries) >= 10
        await pilot.press("slash", *"reduced twice")
        await settle(app, pilot)
        found = app.screen.shown
        assert found[0] == "zero-grad-reduced-twice" and len(found) < len(everything)
        await pilot.press(*" zzzqqq")  # no entry has every word: the search falls back to any word
        await settle(app, pilot)
        assert "zero-grad-reduced-twice" in app.screen.shown
        app.screen.query_one("#q").value = "qqqxyzzy"
        await settle(app, pilot)
        assert app.screen.shown == [] and "0 of" in screen_text(app)
        app.screen.query_one("#q").value = ""
        await settle(app, pilot)
        assert app.screen.shown == everything
    run(test)


def test_a_home_the_search_database_cannot_be_written_to_is_a_notice_not_a_crash(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("VLKB_HOME", str(tmp_path / "file" / "home"))  # under a file: even root cannot create it

    async def test(app, pilot):
        everything = app.screen.shown
        await pilot.press("slash", *"nan")
        await settle(app, pilot)
        assert app.screen.shown == everything and app.is_running  # the list stays whole, the app stays up
        assert any("KB search unavailable: Not a directory" in str(n.message) for n in app._notifications)
    run(test)


def test_family_and_framework_filters():
    async def test(app, pilot):
        screen = app.screen
        screen.query_one("#framework", Select).value = "colossalai"
        await settle(app, pilot)
        shown = screen.shown
        assert shown and all("colossalai" in screen.entries[i].frameworks for i in shown)
        assert len(shown) < len(screen.entries)
        screen.query_one("#family", Select).value = "loss-nan"
        await settle(app, pilot)
        assert all(screen.entries[i].family == "loss-nan" for i in screen.shown)
        screen.query_one("#framework", Select).clear()
        await settle(app, pilot)
        assert screen.shown == ["loss-nan"]
    run(test)


def test_selecting_an_entry_shows_its_sections_and_fixture():
    async def test(app, pilot):
        screen = app.screen
        await pilot.press("slash", *"ready only once")
        await settle(app, pilot)
        await pilot.press("tab", "tab", "tab")  # from the search box to the list
        await pilot.press("home")
        await settle(app, pilot)
        entry = screen.entries[screen.selected]
        assert screen.selected == screen.shown[0] == "ddp-mark-variable-ready-twice"
        doc = screen.query_one(Markdown).source
        for heading in ("# ", "## Symptom", "## Root cause", "## Fix", "## Sources"):
            assert heading in doc
        assert entry.sources[0]["url"] in doc
        fixture = fx.parse([p for p in entry.fixtures if ".pos-" in p.name][0])
        matched = fixture.text.splitlines()[fixture.match_line - 1].strip()
        lines = screen.query_one(EntryView).fixture_lines
        shown = "\n".join(t.plain for t in lines)
        assert fixture.name in shown and matched[:60] in shown
        highlighted = [t for t in lines if any("reverse" in str(s.style) for s in t.spans)]
        assert len(highlighted) == 1 and matched[:60] in highlighted[0].plain
    run(test, size=(120, 40))


def test_kb_browser_fits_80x24():
    async def test(app, pilot):
        text = screen_text(app)
        assert "search the KB" in text and "entries" in text and "Help" in text
        assert app.screen.selected == app.screen.shown[0]
    run(test, size=(80, 24))
