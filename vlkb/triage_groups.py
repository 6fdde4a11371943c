"""Fleet triage's groups: the failed jobs' rows by entry and by fingerprint, and suspect hosts and ranks.

Groups are by entry and by fingerprint (the history's key for a root failure, stable across runs);
"new" means the fingerprint is not in the history as it was before this run; a host or rank is
"suspect" when it holds the root of more failed jobs than chance would give it among the jobs it ran
in (a Poisson tail under the expectation that each job's root falls on any of its hosts alike).
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict

SUSPECT_P = 0.01  # a host's or rank's share of failed roots this unlikely by chance is suspect
SUSPECT_MIN = 3  # and it holds at least this many roots


def mark_new(rows: list[dict], seen: set[str]) -> None:
    for row in rows:
        row["new"] = None if row["fingerprint"] is None else row["fingerprint"] not in seen


def groups(rows: list[dict]) -> dict:
    failed = [r for r in rows if r["status"] == "ok" and r["verdict"] in ("known", "unknown", "suspicious")]
    return {"by_entry": _group(failed, lambda r: r["entry"] or r["verdict"]),
            "by_fingerprint": _group([r for r in failed if r["fingerprint"]], lambda r: r["fingerprint"]),
            "suspect_hosts": suspects(failed, "root_host", "hosts"),
            "suspect_ranks": suspects(failed, "root_rank", "ranks")}


def _group(rows: list[dict], key) -> list[dict]:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[key(r)].append(r)
    out = []
    for k, members in by.items():
        times = sorted(t for r in members for t in (r["first_time"], r["last_time"]) if t)
        out.append({"key": k, "jobs": len(members), "entry": members[0]["entry"], "summary": members[0]["summary"],
                    "new": any(r["new"] for r in members),
                    "hosts": sorted({r["root_host"] for r in members if r["root_host"]}),
                    "ranks": sorted({r["root_rank"] for r in members if r["root_rank"]}, key=_rank_key),
                    "first_seen": times[0] if times else None, "last_seen": times[-1] if times else None,
                    "job_names": sorted(r["job"] for r in members)})
    return sorted(out, key=lambda g: (-g["jobs"], str(g["key"])))


def suspects(rows: list[dict], root_key: str, members_key: str) -> list[dict]:
    """Hosts (or ranks) holding more failed roots than chance: each job's root falls on any of the
    hosts it ran on alike, so a host's expected count is the sum over its jobs of 1/(hosts in the job)."""
    observed: Counter = Counter()
    expected: dict[str, float] = defaultdict(float)
    for r in rows:
        where = r[members_key] or ([r[root_key]] if r[root_key] else [])
        if len(where) < 2 or not r[root_key]:
            continue  # a job on one host says nothing about which host is at fault
        observed[r[root_key]] += 1
        for h in where:
            expected[h] += 1 / len(where)
    out = []
    for h, n in observed.items():
        p = _poisson_tail(n, expected[h])
        if n >= SUSPECT_MIN and p < SUSPECT_P:
            out.append({"name": h, "roots": n, "expected": round(expected[h], 2), "p": float(f"{p:.2g}")})
    return sorted(out, key=lambda s: (s["p"], -s["roots"], s["name"]))


def _poisson_tail(k: int, lam: float) -> float:
    """P(X >= k) for X ~ Poisson(lam)."""
    if lam <= 0:
        return 0.0 if k > 0 else 1.0
    term = math.exp(-lam)
    below = 0.0
    for i in range(k):
        below += term
        term *= lam / (i + 1)
    return max(0.0, 1.0 - below)


def _rank_key(r: str):
    return (0, int(r), "") if str(r).isdigit() else (1, 0, str(r))
