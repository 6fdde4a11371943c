#!/usr/bin/env python3
"""Render the CI triage comment vlkb writes for the bundled sample as an SVG picture for the README
(docs/ci-comment.svg), the way a Markdown viewer lays it out (Rich's Markdown renderer).

  python scripts/render_comment_svg.py
"""
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown

from vlkb.kb import load_engine
from vlkb.analyzer.report import markdown

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    import os

    os.chdir(ROOT)
    d = load_engine().diagnose(["data/samples/ms-swift-minicpmv-dpo-zero2.log"])
    text = markdown.render(d).replace("<details>", "").replace("</details>", "")
    text = text.replace("<summary>", "**").replace("</summary>", "**").replace("<sub>", "").replace("</sub>", "")
    console = Console(record=True, width=110, file=open(os.devnull, "w"))
    console.print(Markdown(text.split("\n", 1)[1]))
    out = ROOT / "docs" / "ci-comment.svg"
    out.write_text(console.export_svg(title="vlkb triage comment (data/samples/ms-swift-minicpmv-dpo-zero2.log)"))
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
