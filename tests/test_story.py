"""The story of a diagnosis (analyzer/report/story.py): what each verdict's story holds, and that the
formats that lay it out tell the same one."""
from pathlib import Path

import pytest
from rich.console import Console

from vlkb.analyzer.report import markdown, text
from vlkb.analyzer.report.story import SCAFFOLD, tell

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = ROOT / "kb" / "entries"
MS_SWIFT_GRPO = ENTRIES / "dataset-format-error" / "dataset-format-error.pos-ms-swift-grpo-cosine-reward-missing-solution.log"
UNKNOWN = ROOT / "kb" / "unknown" / "torch-restore-location-mps.log"
CLEAN = ENTRIES / "checkpoint-inputs-no-grad-silent" / "checkpoint-inputs-no-grad-silent.neg-llamafactory-full-frozen-vision.log"
SUSPICIOUS = ENTRIES / "checkpoint-inputs-no-grad-silent" / "checkpoint-inputs-no-grad-silent.pos-tinyllava-lora.log"
RANKS = ROOT / "data" / "samples" / "llamafactory-minicpmv-zero2-ranks.log"


@pytest.fixture
def story(engine):
    return lambda path: tell(engine.diagnose([str(path)]))


def test_a_known_failures_fix_is_told_for_this_run(story):
    s = story(MS_SWIFT_GRPO)
    fix = s.named.fix
    assert "`CosineReward`" in fix.advice[0]  # the advice holds the run's own value, captured from its log
    assert fix.text.lstrip().startswith("- ms-swift:")  # the run's framework's bullet first
    assert not fix.as_written.lstrip().startswith("- ms-swift:")  # ...though the entry lists it later
    assert "LLaMA-Factory" in fix.other_names and "LLaMA-Factory:" not in fix.text.split("\n\n")[0]


def test_an_unknown_failure_has_no_fix_but_says_how_to_teach_vlkb(story):
    s = story(UNKNOWN)
    assert s.verdict == "unknown" and s.named is None
    assert s.scaffold == SCAFFOLD and s.subject is not None and s.lead is not None
    assert all(c.confidence < s.threshold for c in s.nearest)


def test_a_clean_log_names_nothing_and_says_what_was_harmless(story):
    s = story(CLEAN)
    assert s.verdict == "clean" and s.named is None and s.subject is None
    assert s.scaffold == "" and s.lead is None and s.nearest == ()
    assert [entry_id for entry_id, _ in s.harmless] == ["checkpoint-inputs-no-grad-silent"]


def test_a_suspicious_run_names_the_silent_entry_under_its_suspicion(story):
    s = story(SUSPICIOUS)
    assert s.verdict == "suspicious" and s.suspicion.startswith("No step failed")
    assert s.named.id == "checkpoint-inputs-no-grad-silent" and s.subject is not None
    assert s.harmless == () and s.scaffold == ""


def test_the_other_incidents_are_every_incident_but_the_subject(story):
    s = story(RANKS)
    assert s.subject is not None and s.subject not in s.others
    assert len(s.others) >= 1 and all(i is not s.subject for i in s.others)


def test_text_markdown_and_the_tui_tell_the_same_fix_for_this_run(engine):
    from vlkb.tui.cause_view import cause

    d = engine.diagnose([str(MS_SWIFT_GRPO)])
    s = tell(d)
    console = Console(width=400, no_color=True)
    with console.capture() as tui:
        console.print(cause(d, {"verify": "v", "new": "a"}))
    first_bullet = s.named.fix.text.strip().splitlines()[0]
    for out in (text.render(d), markdown.render(d), tui.get()):
        assert "For this run" in out and "`CosineReward`" in out
        assert first_bullet in out
        assert out.index(s.named.why.split()[0]) < out.index(first_bullet)  # why, then what to do
