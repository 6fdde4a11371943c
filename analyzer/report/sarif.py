"""SARIF 2.1.0 (OASIS), for code-scanning dashboards: one rule per KB entry (`ruleId` = entry id,
help = its fix), one result per diagnosis with its location in the log, and `partialFingerprints`
that stay the same across runs of the same failure (fold.stable_id, also the history's key: no
ranks, paths, numbers or timestamps), so a dashboard tracks one alert instead of a new one per run.
"""
from __future__ import annotations

import json

from ..diagnose import Diagnosis
from . import PLAIN, Context
from ..fold import stable_id
from ..model import Line

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
UNKNOWN_RULE = "unknown-failure"
_LEVEL = {"known": "error", "suspicious": "warning", "unknown": "error"}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vlkb")
    except PackageNotFoundError:
        return "0"


def _rule(e) -> dict:
    return {
        "id": e.id,
        "name": "".join(w.title() for w in e.id.split("-")),
        "shortDescription": {"text": e.title},
        "fullDescription": {"text": e.root_cause},
        "help": {"text": e.fix, "markdown": e.fix},
        **({"helpUri": e.sources[0]["url"]} if e.sources else {}),
        "defaultConfiguration": {"level": "warning" if e.silent else "error"},
        "properties": {"tags": list(e.tags), "family": e.family, "frameworks": list(e.frameworks)},
    }


def _unknown_rule() -> dict:
    return {"id": UNKNOWN_RULE, "name": "UnknownFailure",
            "shortDescription": {"text": "A failure no KB entry explains"},
            "fullDescription": {"text": "vlkb found the root failure of the run but no KB entry above the threshold."},
            "help": {"text": "Read the root incident; `vlkb kb new ID --from LOG` scaffolds an entry from it."},
            "defaultConfiguration": {"level": "error"}}


def _location(line: Line) -> dict:
    region = {"startLine": max(1, line.lineno), "snippet": {"text": line.text}}
    uri = line.path if line.path not in ("-", "<stdin>") else "stdin"
    return {"physicalLocation": {"artifactLocation": {"uri": uri.replace("\\", "/")}, "region": region}}


def to_dict(d: Diagnosis, entries: list) -> dict:
    rules = [_rule(e) for e in entries] + [_unknown_rule()]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    subject = d.subject
    if d.verdict in _LEVEL and subject is not None:
        named = d.named
        rule = named.entry.id if named else UNKNOWN_RULE
        cited = named.evidence[0] if named and named.evidence else subject.first
        text = " ".join((subject.message or subject.first.text).split())[:1000]
        message = f"{named.entry.title}: {text}" if named else f"Unknown failure: {text}"
        result = {
            "ruleId": rule, "ruleIndex": index[rule], "level": _LEVEL[d.verdict],
            "message": {"text": message},
            "locations": [_location(cited)],
            "relatedLocations": [{"id": i, **_location(l)} for i, l in enumerate(named.evidence[1:8] if named else [], 1)],
            "partialFingerprints": {"vlkbRootFailure/v1": stable_id(subject)},
            "properties": {"confidence": named.confidence if named else None, "verdict": d.verdict,
                           "ranks": subject.ranks, "count": subject.count,
                           # --top: the other candidates above the noise floor
                           "alsoConsidered": [{"entry": r.entry.id, "confidence": r.confidence} for r in d.runners_up]},
        }
        if d.similar:  # public reports of the same failure (vlkb/reports.similar)
            result["properties"]["similarReports"] = [{"url": f.url, "title": f.report.title, "similarity": f.likeness.score,
                                                       "resolution": f.resolution or None} for f in d.similar]
        if not result["relatedLocations"]:
            del result["relatedLocations"]
        results.append(result)
    run = {
        "tool": {"driver": {"name": "vlkb", "version": _version(), "rules": rules}},
        "invocations": [{"executionSuccessful": True}],
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(d: Diagnosis, ctx: Context = PLAIN) -> str:
    return json.dumps(to_dict(d, list(ctx.entries)), indent=2, ensure_ascii=False)
