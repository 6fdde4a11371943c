"""An entry's documentation in fixed sections (`vlkb kb show`, the TUI), and `kb/INDEX.md`, the
catalogue generated from the entries' YAML (`vlkb kb fit` writes it): one source for CLI and docs."""
from __future__ import annotations

import re

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


def entry_sections(e) -> list[tuple[str, str]]:
    """(heading, Markdown body) in a fixed order; empty sections are left out."""
    sections = [("Symptom", e.symptom), ("Root cause", e.root_cause), ("Fix", e.fix)]
    if e.conditions:
        sections.append(("When the log shows", "\n".join(
            f"- {c.describe()}: {c.note} (weight {c.weight:g})" for c in e.conditions)))
    if e.unless:
        sections.append(("Harmless when the log shows", "\n".join(f"- {c.describe()}: {c.note}" for c in e.unless)))
    if e.advice:
        sections.append(("Advice for a run", "\n".join(
            f"- if {' and '.join(c.describe() for c in a.when) or 'always'}: {a.text.strip()}" for a in e.advice)))
    sections.append(("Sources", "\n".join(f"- {s['url']}  {s.get('title', '')}".rstrip() for s in e.sources)))
    return sections


def entry_markdown(e, fixtures: bool = True) -> str:
    """The entry as `vlkb kb show` prints it: title, one line of metadata, then its sections."""
    meta = (f"id: {e.id}   family: {e.family}   frameworks: {', '.join(e.frameworks)}"
            + ("   silent: the run fails no step; matched on a warning" if e.silent else ""))
    parts = [f"# {e.title}", meta]
    for heading, body in entry_sections(e):
        parts += [f"## {heading}", body]
    if fixtures:
        parts += ["## Fixtures", *(f"- {p.name}" for p in e.fixtures)]
    return "\n\n".join(parts)


def select(entries: list, family: str | None = None, framework: str | None = None, tag: str | None = None) -> list:
    """Entries sorted by id, kept when they belong to the family, framework and tag given. Names
    compare without case, spaces, dashes or underscores: "LLaMA-Factory" finds llama-factory."""
    key = lambda s: re.sub(r"[\s_-]", "", s).lower()  # noqa: E731
    return [e for e in sorted(entries, key=lambda e: e.id)
            if (not family or key(e.family) == key(family))
            and (not framework or key(framework) in {key(f) for f in e.frameworks})
            and (not tag or key(tag) in {key(t) for t in e.tags})]
