#!/usr/bin/env python3
"""Screenshots of the TUI's main screens for the README (docs/tui-*.svg), taken headless on the bundled
sample logs at 120x40. The verify panel runs the real `vlkb verify` (needs the verify extra).

  python scripts/render_tui_svgs.py
"""
import asyncio
import os
from pathlib import Path

from vlkb.tui.app import VlkbApp

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "data/samples/llamafactory-minicpmv-zero2-ranks.log"


async def settle(app, pilot) -> None:
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause(0.3)


async def shoot(app, name: str, *keys, until=None) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press(*keys)
        await settle(app, pilot)
        while until is not None and not until(app):
            await pilot.pause(0.2)
        app.save_screenshot(str(ROOT / "docs" / f"tui-{name}.svg"))
    print(f"wrote docs/tui-{name}.svg")


def main() -> None:
    os.chdir(ROOT)
    os.environ.setdefault("VLKB_HOME", str(ROOT / ".vlkb-screenshots"))
    asyncio.run(shoot(VlkbApp([SAMPLE]), "diagnosis"))
    asyncio.run(shoot(VlkbApp(), "kb", "slash", *"ready only once", "tab", "tab", "tab"))
    asyncio.run(shoot(VlkbApp(["data/samples/ms-swift-minicpmv-dpo-zero2.log"]), "verify", "v",
                      until=lambda app: getattr(app.screen, "result", None) is not None))


if __name__ == "__main__":
    main()
