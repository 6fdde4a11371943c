"""From log inputs to a diagnosis: scan, fold, elect the root, match it against the KB."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from . import tfidf
from .elect import Collector, elect
from .facts import TRIGGER_WORDS, FactSheet
from .match import Calibration, Matcher, Scored
from .memo import Memo
from .model import Incident, Line
from .patterns import TRIGGER
from .reader import ReadStats, expand
from .records import RecordParser
from .scan import scan
from .trigger import Trigger

# Lines that state how the run was configured; KB `context` hints are matched against them.
FACTS = re.compile(
    r"gradient_checkpointing|use_reentrant|zero_optimization|\"stage\"\s*:|--deepspeed|deepspeed[:=]"
    r"|\bzero[_-]?(?:stage[_ ]?)?[123]\b|ds_z[0-3]|\bbf16\b|\bfp16\b|freeze_vi|GeminiPlugin|HybridAdam"
    r"|clip_grad|max_grad_norm|find_unused_parameters|Qwen2(?:\.5)?[-_]?VL|MiniCPM-?V",
    re.I,
)
FACTS_TRIGGER = (rb"gradient_checkpointing|use_reentrant|zero_optimization|\"stage\"|deepspeed|DeepSpeed"
                 rb"|zero[123_-]|ds_z|bf16|fp16|freeze_vi|Gemini|HybridAdam|clip_grad|max_grad_norm"
                 rb"|find_unused|Qwen2|MiniCPM")
MAX_FACTS = 200
DEFAULT_THRESHOLD = 0.5


@dataclass
class Diagnosis:
    verdict: str  # "known" | "unknown" | "clean"
    matches: list[Scored]  # best first; below threshold when the verdict is "unknown"
    incidents: list[Incident]  # root first
    facts: list[Line]  # lines that state how the run was configured
    stats: ReadStats
    threshold: float
    inputs: list[str] = field(default_factory=list)
    run: dict = field(default_factory=dict)  # key -> Fact: versions, model, config (analyzer/facts.py)

    @property
    def root(self) -> Incident | None:
        return self.incidents[0] if self.incidents and self.incidents[0].root else None


class Engine:
    """A loaded KB with its index; reuse one for many diagnoses."""

    def __init__(self, entries: list, idf: dict, vectors: dict, calibration: Calibration):
        self.entries = entries
        self.calibration = calibration
        self.matcher = Matcher(entries, idf, vectors, calibration)
        phrases = sorted({t for e in entries for t in e.triggers})
        self.signature = re.compile("|".join(map(re.escape, phrases))) if phrases else None
        self.trigger = Trigger(re.compile(b"|".join(
            [TRIGGER.pattern, FACTS_TRIGGER, *(re.escape(w.encode()) for w in TRIGGER_WORDS),
             *(re.escape(p.encode()) for p in phrases)])))

    @classmethod
    def load(cls, extra_kb: list[str] = ()) -> "Engine":
        """The shipped KB plus `extra_kb` directories, with the persisted index (kb/fit.py)."""
        from vlkb.kb import loader  # the KB package; no heavy imports

        entries = loader.load(extra_kb)
        index = json.loads(loader.index_path().read_text(encoding="utf-8"))
        if index["fingerprint"] == loader.fingerprint(entries):
            idf, vectors = index["idf"], index["vectors"]
        else:  # extra entries changed the corpus: refit in plain Python, same formula
            idf, vectors = fit_vectors(entries)
        cal = index["calibration"]
        return cls(entries, idf, vectors, Calibration(cal["coef"], cal["intercept"], cal["threshold"]))

    def diagnose(self, inputs: list[str], top: int = 3) -> Diagnosis:
        collector = Collector()
        stats = ReadStats()
        facts: dict[str, Line] = {}
        seen = Memo()  # texts already checked for facts
        sheet = FactSheet()

        def on_line(line: Line) -> None:
            sheet.observe(line)
            text = line.text
            if len(facts) >= MAX_FACTS or text in seen:
                return
            seen.remember(text, True)
            if FACTS.search(text):
                facts[text] = line

        parser = RecordParser(collector.add, self.signature)
        scan(expand(inputs), parser, stats, on_line, self.trigger, collector.again)
        incidents = elect(collector.order)
        if collector.dropped:
            stats.notes.append(f"{collector.dropped} further distinct warnings/metrics were not kept")
        threshold = self.calibration.threshold
        root = incidents[0] if incidents and incidents[0].root else None
        if root is None:
            return Diagnosis("clean", [], incidents, list(facts.values()), stats, threshold, inputs, sheet.facts)
        context = list(facts.values()) + [i.first for i in incidents if i.kind == "warning"]
        subject = merge_fragments(root, incidents) if root.truncated else root
        scored = [s for s in self.matcher.score(subject, context, sheet.facts) if s.signals][:top]
        verdict = "known" if scored and scored[0].confidence >= threshold else "unknown"
        return Diagnosis(verdict, scored, incidents, list(facts.values()), stats, threshold, inputs, sheet.facts)


def merge_fragments(root: Incident, incidents: list[Incident]) -> Incident:
    """A traceback cut before its exception is matched together with the other cut fragments:
    pasted excerpts and interleaved ranks split one failure's traceback into pieces."""
    pieces = [i for i in incidents if i.truncated and not i.cascade]
    if len(pieces) < 2:
        return root
    merged = Incident(kind=root.kind, lines=[l for i in pieces for l in i.lines],
                      frames=[f for i in pieces for f in i.frames], chain=list(root.chain),
                      ranks=sorted({r for i in pieces for r in i.ranks}), root=True)
    return merged


def fit_vectors(entries: list) -> tuple[dict, dict]:
    docs = [e.document() for e in entries]
    idf = tfidf.fit_idf(docs)
    return idf, {e.id: tfidf.transform(d, idf) for e, d in zip(entries, docs)}
