"""GitHub Actions workflow commands: `::error file=...,line=...,title=...::message` annotations, at
most 10 and best first, and the triage comment appended to the job summary ($GITHUB_STEP_SUMMARY).

Every value is escaped as the runner expects (`%`, CR and LF in messages; also `:` and `,` in
properties), so log text can neither end the command early nor start one of its own.
"""
from __future__ import annotations

import os

from ..diagnose import Diagnosis
from . import PLAIN, Context, markdown
from .story import HEADLINES, Named, Story, tell

MAX_ANNOTATIONS = 10
MAX_SUMMARY_BYTES = 1_000_000  # GitHub's limit per step summary is 1 MiB


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, title: str, path: str | None = None, line: int | None = None,
            end_line: int | None = None) -> str:
    props = []
    if path and path != "-" and not path.startswith("<"):
        props.append(f"file={escape_property(path)}")
        if line:
            props.append(f"line={line}")
            if end_line and end_line > line:
                props.append(f"endLine={end_line}")
    props.append(f"title={escape_property(title[:200])}")
    return f"::{level} {','.join(props)}::{escape_data(message[:4000])}"


def annotations(d: Diagnosis) -> list[str]:
    story = tell(d)
    named, subject = story.named, story.subject
    out = [_named(story, named)] if named else []
    if story.verdict == "unknown" and subject is not None:
        similar = "".join(f"\n- {f.url} ({f.likeness.score:.2f})" for f in story.similar)
        out.append(command("error", f"{subject.message.strip() or subject.first.text}\n\nNo KB entry explains this "
                           f"failure above the threshold ({story.threshold:.2f})."
                           + (f"\nSimilar public reports:{similar}" if similar else ""), "vlkb: unknown failure",
                           subject.first.path, subject.first.lineno, subject.last_lineno))
    for inc in story.others:
        if len(out) >= MAX_ANNOTATIONS:
            break
        if inc.kind in ("metric", "warning"):  # never noisy: failures and their cascade only
            continue
        level = "notice" if inc.cascade else "warning"
        label = "cascade" if inc.cascade else inc.kind
        text = " ".join((inc.message or inc.first.text).split())
        out.append(command(level, f"{text}" + (f" (x{inc.count})" if inc.count > 1 else ""),
                           f"vlkb: {label}", inc.first.path, inc.first.lineno, inc.last_lineno))
    return out[:MAX_ANNOTATIONS]


def _named(story: Story, named: Named) -> str:
    """The named entry at its first evidence line: what it is, how sure, the fix's first line, the advice."""
    first = named.evidence[0] if named.evidence else story.subject.first
    level = "error" if story.verdict == "known" else "warning"
    fix = named.fix.as_written.strip().splitlines()[0]
    also = (f"\nAlso considered: {', '.join(f'{r.id} ({r.confidence:.2f})' for r in named.runners_up)}"
            if named.runners_up else "")  # --top
    return command(level, f"{first.text.strip()}\n\n{named.title} ({named.how_sure}).\nFix: {fix}"
                   + "".join(f"\n- {a}" for a in named.fix.advice) + also, f"vlkb: {named.id}", first.path, first.lineno)


def render(d: Diagnosis, ctx: Context = PLAIN) -> str:
    """The annotations for stdout; the Markdown comment goes to the job summary when there is one."""
    summary, lost = os.environ.get("GITHUB_STEP_SUMMARY"), []
    if summary:
        try:
            append_summary(summary, markdown.render(d))
        except OSError as err:  # a path the runner did not make, a full disk: the annotations still go out
            lost.append(command("warning", f"the job summary was not written: {err.strerror or err}", "vlkb"))
    return "\n".join([*annotations(d), *lost, f"vlkb: {HEADLINES[d.verdict]}"])


def append_summary(path: str, text: str) -> None:
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if size + len(text.encode()) > MAX_SUMMARY_BYTES:
        text = "vlkb: the job summary is full; see the step log.\n"
        if size + len(text) > MAX_SUMMARY_BYTES:
            return
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
