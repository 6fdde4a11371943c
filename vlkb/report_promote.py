"""From public reports to KB entries: the failures several reports share that no entry covers, and an
entry scaffolded from chosen reports (`vlkb reports candidates`, `vlkb kb new ID --from-report URL...`)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from vlkb.analyzer.signature import Signature
from vlkb.analyzer.similar import Reader
from vlkb.report_index import Index, ensure
from vlkb.report_records import find_records, report_key

CLUSTER_LIKENESS = 0.75  # two reports this alike are one failure, for candidates


def candidates(engine, min_size: int = 3, path: Path | None = None) -> list[dict]:
    """Groups of at least `min_size` reports of one failure (linked by likeness, transitively) none of
    which an entry's fixture proves, largest first: failures the public reports share and no entry covers."""
    index = Index(ensure(engine, path))
    try:
        rows = index.db.execute("select id, url, quoted, entry, signature from reports").fetchall()
        parent = {r[0]: r[0] for r in rows}

        def root(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        by_url = {r[1]: r[0] for r in rows}
        for rid, _, _, entry, sig in rows:
            if entry:
                continue
            for f in index.search(Signature.from_json(json.loads(sig)), k=50, floor=CLUSTER_LIKENESS):
                other = by_url.get(f.url)
                if other is not None:
                    parent[root(other)] = root(rid)
        groups: dict[int, list] = {}
        for r in rows:
            groups.setdefault(root(r[0]), []).append(r)
    finally:
        index.close()
    out = []
    for members in groups.values():
        if len(members) < min_size or any(m[3] for m in members):
            continue
        out.append({"quoted": members[0][2], "urls": sorted(m[1] for m in members)})
    return sorted(out, key=lambda g: (-len(g["urls"]), g["quoted"]))


def promote(entry_id: str, urls: list[str], dest: Path, family: str | None = None) -> list[Path]:
    """`vlkb kb new ID --from-report URL...`: an entry scaffolded from the first report's error, and a
    positive fixture from each further one, each with its source."""
    import tempfile

    from vlkb.kb.fixtures import MATCH, NOTE, SOURCE
    from vlkb.kb.scaffold import scaffold

    found = find_records(urls)
    with tempfile.TemporaryDirectory() as tmp:
        first = Path(tmp) / f"{re.sub(r'[^a-z0-9]+', '-', report_key(found[0].url))}.log"
        first.write_text(found[0].excerpt() + "\n", encoding="utf-8")
        written = scaffold(entry_id, [str(first)], dest, found[0].url, family)
    reader = Reader()
    for r in found[1:]:
        root = reader.root(r.excerpt())
        if root is None:
            continue
        lines = r.excerpt().splitlines()
        at = root.quoted.lineno - 1
        body = [(MATCH if i == at else "") + line for i, line in enumerate(lines)]
        slug = re.sub(r"[^a-z0-9]+", "-", report_key(r.url))
        path = dest / entry_id / f"{entry_id}.pos-{slug}.log"
        path.write_text("\n".join([f"{SOURCE}{r.url}", f"{NOTE}from the vlkb reports record of {r.url}", *body]) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written
