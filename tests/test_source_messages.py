"""Source messages (kb/sourcemsgs.py): the wording a framework's code raises, read from its source and
turned into patterns when an entry is loaded."""
import json
import re
import shutil

import pytest
import yaml

from vlkb.analyzer.regexinfo import required_literals
from vlkb.analyzer.report import render
from vlkb.kb import fixtures as fx
from vlkb.kb import load_engine, sourcemsgs
from vlkb.kb.lint import lint_dir
from vlkb.kb.loader import load, shipped_dir
from vlkb.kb.schema import EntryError

ENTRY = "transformers-model-type-unrecognized"
SHIPPED = sorted(shipped_dir().glob(f"*/*{sourcemsgs.SUFFIX}"))


def test_templates_become_bounded_patterns_and_generic_ones_none():
    # transformers' modeling_utils: placeholders become bounded gaps, runs of spaces one bounded quantifier
    rx = sourcemsgs.pattern("Can't find a checkpoint index ({index_filename}) in {pretrained_model_name_or_path}.")
    assert rx == r"Can't {1,64}find {1,64}a {1,64}checkpoint {1,64}index {1,64}\(.{0,300}?\) {1,64}in.{0,300}?\."
    assert re.search(rx, "OSError: Can't find a checkpoint index (pytorch_model.bin.index.json) in /data/ckpt/qwen2-vl.")
    # ColossalAI's message holds a run of 32 spaces (a string continued across source lines): one quantifier
    rx = sourcemsgs.pattern("Invalid index file path {index_file_path} for an optimizer.                                "
                            "Lacking param group file under current directory.")
    assert "optimizer\\. {1,64}Lacking" in rx and not re.search(r"\{1,64\}\\? \{", rx)
    # the first line only (LLaMA-Factory's check_version message and its hint)
    assert sourcemsgs.pattern("Cannot find valid samples, check `data/README.md` for the data format.\nhint {x}") == \
        r"Cannot {1,64}find {1,64}valid {1,64}samples, {1,64}check {1,64}`data/README\.md` {1,64}for {1,64}the {1,64}data {1,64}format\."
    for generic in ("{a}: {b}", "Invalid value: {x}", "{module} is not supported", "Unknown {x} {y}",
                    "Use {{placeholder}} in the template file please"):
        assert sourcemsgs.pattern(generic) is None, generic


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.parent.name)
def test_each_shipped_row_matches_its_message_as_a_run_prints_it(path):
    rows = sourcemsgs.read(path)
    assert rows
    for row in rows:
        rx = re.compile(sourcemsgs.pattern(row["template"]))
        shown = sourcemsgs.printed(row["template"])
        assert rx.search(shown) and rx.search(f"[rank0]: {row['exception']}: {shown}"), row
        # the shortlist admits the entry by a required literal, which every match holds (test_shortlist's
        # soundness check, made here on the message itself)
        need = required_literals(rx)
        assert need and any(lit in shown for lit in need), row
        # linear: no two quantifiers side by side (each run of spaces is one, each gap is one)
        assert not re.search(r"\}\??(?:\\ | )?\{\d", rx.pattern.replace(".{0,300}?", "~")), row
        assert row["repo"].count("/") == 1 and row["line"] > 0 and row["commit"], row


def _entry_without_written_match(tmp_path, fixture_text: str) -> tuple:
    """A user KB whose copy of transformers-model-type-unrecognized replaces the shipped one: none of its written
    patterns matches the fixture, and its source messages are the one real row (unsloth's loader) that does."""
    src = yaml.safe_load((shipped_dir() / "transformers-model-type-unrecognized" /
                          "transformers-model-type-unrecognized.yaml").read_text())
    doc = dict(src, patterns=[p for p in src["patterns"] if not any(re.search(p["regex"], l) for l in fixture_text.splitlines())])
    folder = tmp_path / "kb" / ENTRY
    folder.mkdir(parents=True)
    (folder / f"{ENTRY}.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True))
    shipped_rows = sourcemsgs.read(shipped_dir() / "transformers-model-type-unrecognized" /
                                   f"transformers-model-type-unrecognized{sourcemsgs.SUFFIX}")
    row = next(r for r in shipped_rows if r["repo"] == "unslothai/unsloth" and "support Qwen3.5." in r["template"])
    messages = folder / f"{ENTRY}{sourcemsgs.SUFFIX}"
    messages.write_text(json.dumps(row) + "\n")
    return tmp_path / "kb", messages, sourcemsgs.pattern(row["template"])


def test_an_entry_names_a_real_log_by_its_source_message_alone(tmp_path):
    fixture = fx.parse(shipped_dir() / "transformers-model-type-unrecognized" /
                       "transformers-model-type-unrecognized.pos-unsloth-transformers-too-old-qwen35.log")
    log = tmp_path / "train.log"
    log.write_text(fixture.text)
    kb, messages, rx = _entry_without_written_match(tmp_path, fixture.text)
    d = load_engine([kb]).diagnose([str(log)], top=5)
    assert d.verdict == "known" and d.named.entry.path.parent == kb / ENTRY
    assert any(g.name == "regex" and g.detail == rx for g in d.named.signals)
    # the report says where the source raises it, and when (the row's own words)
    assert d.named.raised_by.startswith("unslothai/unsloth unsloth/models/loader.py:")
    assert d.named.raised_by.endswith(": a Qwen3.5 model with transformers < 5.2.0")
    assert f"raised by {d.named.raised_by}" in " ".join(render("text", d).split())
    messages.unlink()  # without its source messages no pattern of the entry matches (only its resemblance)
    d = load_engine([kb]).diagnose([str(log)], top=5)
    assert not [g for s in d.matches if s.entry.id == ENTRY for g in s.signals if g.name == "regex"]


def _user_entry(tmp_path):
    """A user KB holding a copy of the first shipped entry that has source messages, without them: the
    path its source messages would have."""
    entry = SHIPPED[0].with_name(SHIPPED[0].parent.name + ".yaml")
    folder = tmp_path / entry.parent.name
    folder.mkdir()
    shutil.copy(entry, folder / entry.name)
    return folder / (entry.stem + sourcemsgs.SUFFIX)


def test_a_broken_source_messages_file_is_refused_with_its_line(tmp_path):
    bad = _user_entry(tmp_path)
    bad.write_text('{"repo": "a/b", "path": "x.py", "line": "12"}\n')
    with pytest.raises(EntryError, match=rf"{re.escape(bad.name)}:1: a row needs"):
        load([tmp_path])
    bad.write_text("not json\n")
    assert any(p.path == str(bad) and "not JSON" in p.problem for p in lint_dir(tmp_path))


def test_lint_warns_of_a_row_too_generic_to_give_a_pattern(tmp_path):
    row = dict(sourcemsgs.read(SHIPPED[0])[0], template="{name} is not supported")
    _user_entry(tmp_path).write_text(json.dumps(row) + "\n")
    found = [p for p in lint_dir(tmp_path) if p.path.endswith(sourcemsgs.SUFFIX)]
    assert [p.key for p in found] == ["line 1"] and "too generic" in found[0].fix
