"""`kb/INDEX.md`: the catalogue of entries, generated from their YAML (`vlkb kb fit` writes it)."""
from __future__ import annotations

from . import fixtures as fx

HEADER = "<!-- DO NOT EDIT: generated from kb/entries/*/*.yaml by `vlkb kb fit` -->"


def render_index(entries: list) -> str:
    lines = [HEADER, "", "# vlkb knowledge base", "",
             f"{len(entries)} entries. Each links to its YAML; `vlkb kb show ID` prints it in full.", "",
             "| id | family | title | frameworks | tags | fixtures (pos/neg) | verify |",
             "|---|---|---|---|---|---|---|"]
    for e in sorted(entries, key=lambda e: e.id):
        kinds = [fx.parse(p).kind for p in e.fixtures]
        rel = f"entries/{e.path.parent.name}/{e.path.name}"
        verify = f"repro `{e.verify['repro']}`" if "repro" in e.verify else "none"
        lines.append(f"| [{e.id}]({rel}) | {e.family} | {e.title} | {', '.join(e.frameworks)} | "
                     f"{', '.join(e.tags)} | {kinds.count('pos')}/{kinds.count('neg')} | {verify} |")
    lines += ["", "## Sources", ""]
    for e in sorted(entries, key=lambda e: e.id):
        lines.append(f"- **{e.id}**: " + ", ".join(f"<{s['url']}>" for s in e.sources))
    return "\n".join(lines) + "\n"
