"""The JSON contract `vlkb.diagnosis/1`: stable; CI and later features build on it."""
from __future__ import annotations

import json

from ..diagnose import Diagnosis
from . import PLAIN, Context, strength
from ..facts import ordered
from ..scores import Scored
from ..model import Incident, Line

SCHEMA = "vlkb.diagnosis/1"


def line_dict(line: Line) -> dict:
    return {"path": line.path, "line": line.lineno, "text": line.text, "rank": line.who}


def incident_dict(inc: Incident) -> dict:
    return {
        "kind": inc.kind,
        "exception": inc.exception,
        "message": inc.message,
        "path": inc.first.path,
        "line_start": inc.first.lineno,
        "line_end": inc.last_lineno,
        "ranks": inc.ranks,
        "time": inc.when,
        "count": inc.count,
        "root": inc.root,
        "cascade": inc.cascade,
        "truncated": inc.truncated,
        "frames": [{"file": f.file, "line": f.lineno, "func": f.func} for f in inc.frames[-12:]],
    }


def match_dict(s: Scored, d: Diagnosis) -> dict:
    e = s.entry
    fix = d.fix(e)
    return {
        "entry": e.id,
        "family": e.family,
        "title": e.title,
        "confidence": s.confidence,
        "strength": strength(s.confidence) if s.confidence >= d.threshold else None,
        "incident": incident_dict(s.incident),
        "evidence": [line_dict(l) for l in s.evidence],
        "root_cause": e.root_cause,
        "fix": e.fix,
        # the fix told for the run's framework (run fact "framework"): its bullets first, the others apart
        "fix_for_run": fix.text,
        "fix_other_frameworks": fix.others,
        "advice": s.advice,
        "explained": s.explained or None,
        "sources": [src["url"] for src in e.sources],
        "signals": [{"name": g.name, "score": g.score, "detail": g.detail,
                     "lines": [l.lineno for l in g.lines]} for g in s.signals],
        # where a framework's source raises the message that matched ("repo path:line (exception, commit): when")
        "raised_by": s.raised_by or None,
    }


def to_dict(d: Diagnosis) -> dict:
    return {
        "schema": SCHEMA,
        "verdict": d.verdict,
        "threshold": d.threshold,
        "inputs": d.inputs,
        "matches": [match_dict(s, d) for s in d.matches],
        "frameworks": d.frameworks,
        "incidents": [incident_dict(i) for i in d.incidents[:50]],
        "incidents_total": len(d.incidents),
        "facts": [line_dict(l) for l in d.facts[:50]],
        "run": [{"key": f.key, "value": f.value, **line_dict(f.line)} for f in ordered(d.run)],
        "lead": None if d.lead is None else {
            "quoted": line_dict(d.lead.quoted), "library": d.lead.library, "version": d.lead.version,
            "search_url": d.lead.search_url,
            "frames": [{"file": f.file, "line": f.lineno, "func": f.func} for f in d.lead.frames]},
        "similar": [f.to_json() for f in d.similar],
        "seen": None if d.seen is None else {"fingerprint": d.seen.fingerprint, "count": d.seen.count,
                                             "first": d.seen.first, "last": d.seen.last},
        "stats": {"bytes": d.stats.bytes, "lines": d.stats.lines},
        "notes": d.stats.notes,
    }


def render(d: Diagnosis, ctx: Context = PLAIN) -> str:
    return json.dumps(to_dict(d), indent=2, ensure_ascii=False)
