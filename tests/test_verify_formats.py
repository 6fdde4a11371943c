"""`vlkb verify`'s output formats (verify/formats.py), on made-up replays: no repro runs here, so
these run without the verify extra."""
import json
from pathlib import Path

from click.testing import CliRunner

from vlkb.cli import cli
from vlkb.verify.catalog import Repro
from vlkb.verify.formats import FORMATS, Context, render
from vlkb.verify.runner import Run, Replay

CTX = Context("cpu", Path("/logs"))


def _verdict(entry="loss-nan", before_exit=1, after_exit=0, mechanism_only="", diagnosable=True) -> Replay:
    repro = Repro("r", "m", "fails", "fixed", mechanism_only=mechanism_only, diagnosable=diagnosable)
    return Replay(entry, entry, repro, "cpu", Run("before", before_exit, 1.25, Path("/logs/b.log"), diagnosis=entry,
                                                     confidence=0.93),
                   Run("after", after_exit, 2.0, Path("/logs/a.log")))


def test_text_writes_each_entry_as_it_finishes_then_the_tally():
    ok, broken = _verdict(), _verdict("ddp-twice", after_exit=None, mechanism_only="the mechanism only", diagnosable=False)
    assert FORMATS["text"].each(ok) == ("ok   loss-nan                             reproduced=yes (exit 1, diagnosed loss-nan "
                                        "0.93, 1.2 s)  fixed=yes (exit 0, 2.0 s)")
    assert FORMATS["text"].each(broken).splitlines() == [
        "FAIL ddp-twice                            reproduced=yes (exit 1, closed loop n/a, 1.2 s)  fixed=no (timed out, 2.0 s)",
        "     note: the mechanism only"]
    assert render("text", [ok, broken], CTX) == "1/2 reproduced and fixed on cpu; logs in /logs"


def test_json_is_one_report_at_the_end_with_what_the_tui_reads():
    assert FORMATS["json"].each is None  # stdout holds nothing but the report
    (v,) = json.loads(render("json", [_verdict(after_exit=None)], CTX))
    assert {"entry", "reproduced", "closed_loop", "fixed", "ok", "before", "after"} <= set(v)
    assert v["after"]["timed_out"] and not v["fixed"] and not v["ok"] and v["before"]["diagnosis"] == "loss-nan"


def test_verify_offers_every_registered_format():
    help_text = CliRunner().invoke(cli, ["verify", "--help"]).output
    assert "[" + "|".join(FORMATS) + "]" in help_text


def test_the_catalogue_goes_through_the_same_formats():
    """`--list` is rendered by the chosen format like a run's replays: a line per entry, or JSON."""
    rows = [("loss-nan", Repro("bf16-min", "m", "fails", "fixed", needs=("torch", "transformers"), world_size=2,
                               seconds=15, mechanism_only="the mechanism only"))]
    assert FORMATS["text"].listing(rows) == ("loss-nan                             bf16-min                                 "
                                             "needs torch+transformers, 2 process(es), ~15 s")
    (item,) = json.loads(FORMATS["json"].listing(rows))
    assert item == {"entry": "loss-nan", "repro": "bf16-min", "needs": ["torch", "transformers"], "world_size": 2,
                    "seconds": 15, "before": "fails", "after": "fixed", "mechanism_only": "the mechanism only"}
    out = CliRunner().invoke(cli, ["verify", "--list"]).output.splitlines()
    assert out and all(" needs torch" in line for line in out)
