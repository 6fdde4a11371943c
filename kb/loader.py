"""Load KB entries: the shipped ones, then extra directories whose entries override them by id."""
from __future__ import annotations

import hashlib
import json
import marshal
import os
import re
import sys
from pathlib import Path

from vlkb.analyzer.conditions import Advice, Condition
from vlkb.analyzer.diskcache import kept
from vlkb.analyzer.entry import Entry, Rule, fingerprint

from . import sourcemsgs
from .schema import EntryError, schema_hash, validate


# the vlkb.kb package's folder (importlib.resources would import zipfile and tempfile for the same path:
# a tenth of `vlkb diagnose`'s imports; the package is always installed as files)
KB_DIR = Path(__file__).resolve().parent
MAX_YAML_CHARS = 1 << 20  # the largest shipped entry is under 100 KiB


def parse_yaml(text: str):
    """PyYAML, imported here: `vlkb diagnose` reads the shipped entries from the fitted index and
    needs no YAML parser unless an entry changed or a user's KB is given. libyaml's parser when
    PyYAML was built with it (it usually is): 5-10x faster."""
    import yaml

    if len(text) > MAX_YAML_CHARS:
        raise EntryError(f"larger than {MAX_YAML_CHARS >> 10} KiB: a KB entry is a page of text")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        # anchors and aliases are refused before anything is built: an entry needs none, and nested
        # aliases (a "billion laughs") expand to billions of items in whatever walks the document
        if "*" in text and any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text, Loader=loader)):
            raise EntryError("YAML aliases (*name) are not allowed in a KB entry")
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as err:
        raise EntryError(f"not valid YAML ({err})") from None


def read_entry_bytes(path: Path) -> bytes:
    """An entry file's bytes, refused one page past its size limit instead of read whole first (a
    user's --kb is anyone's: a 200 MB file took 450 MB of memory to be refused)."""
    with open(path, "rb") as f:
        raw = f.read(4 * MAX_YAML_CHARS + 1)  # at most 4 bytes a character in UTF-8
    if len(raw) > 4 * MAX_YAML_CHARS:
        raise EntryError(f"larger than {MAX_YAML_CHARS >> 10} KiB: a KB entry is a page of text")
    return raw


def read_yaml(path: Path):
    return parse_yaml(read_entry_bytes(path).decode("utf-8"))


def _rules(items: list[dict], flags: int = 0) -> list[Rule]:
    return [Rule(i["regex"], float(i.get("weight", 1.0)), i.get("note", ""), flags, i.get("raised_in", ""))
            for i in items]


def _conditions(items: list[dict]) -> list[Condition]:
    return [Condition(i["fact"], i["op"], i["value"], float(i.get("weight", 0.5)), i.get("note", "")) for i in items]


def parsed_docs(directory: Path) -> dict[str, dict]:
    """Each entry file of `directory` (path relative to it) -> its sha256 and parsed YAML, validated
    whole (regexes compiled) under the schema whose hash it records, its source messages' patterns
    added, for `kb fit` to store: start-up then reads unchanged entries from the index instead of
    parsing and validating YAML again."""
    out = {}
    for p in sorted(directory.rglob("*.yaml")):
        raw = read_entry_bytes(p)  # hashed and parsed from the same read
        doc = _with_sources(validate(parse_yaml(raw.decode("utf-8")), str(p)), p)
        out[str(p.relative_to(directory))] = {"sha256": _digest(p, raw), "doc": doc, "schema": schema_hash()}
    return out


def _digest(path: Path, raw: bytes) -> str:
    """The entry's identity for the stored parse: its YAML's bytes and its source messages' (kb/sourcemsgs.py)."""
    h = hashlib.sha256(raw)
    src = sourcemsgs.path_for(path)
    if src.exists():
        h.update(b"\0" + sourcemsgs.FORMAT + b"\0" + src.read_bytes())
    return h.hexdigest()


def _with_sources(doc: dict, path: Path) -> dict:
    try:
        extra = sourcemsgs.rules(sourcemsgs.path_for(path))
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise EntryError(f"{sourcemsgs.path_for(path)}: {err}") from None
    return {**doc, "patterns": doc["patterns"] + extra} if extra else doc


def load_entry(path: Path, compile_check: bool = True, parsed: dict | None = None) -> Entry:
    """`compile_check=False` for the shipped KB, whose regexes the suite and `vlkb kb lint` compile;
    a user's entries are always checked whole when loaded. `parsed`: the file's YAML as `kb fit`
    stored it (`parsed_docs`), used when the file's bytes still hash the same."""
    try:
        raw = read_entry_bytes(path)
    except EntryError as err:
        raise EntryError(f"{path}: {err}") from None
    if parsed is not None and parsed.get("sha256") == _digest(path, raw):
        doc = parsed["doc"]
        if parsed.get("schema") != schema_hash():  # stored before the schema changed: check it again
            doc = validate(doc, str(path), compile_check)
    else:
        try:
            doc = parse_yaml(raw.decode("utf-8"))
        except (EntryError, UnicodeDecodeError) as err:
            raise EntryError(f"{path}: {err}") from None
        doc = _with_sources(validate(doc, str(path), compile_check), path)
    return Entry(
        id=doc["id"], family=doc.get("family", doc["id"]), title=doc["title"].strip(),
        symptom=doc["symptom"].strip(), root_cause=doc["root_cause"].strip(), fix=doc["fix"].strip(),
        patterns=_rules(doc["patterns"]), messages=doc["messages"], triggers=doc.get("triggers", []),
        frames=doc.get("frames", []), context=_rules(doc.get("context", []), re.I),
        conditions=_conditions(doc.get("conditions", [])), unless=_conditions(doc.get("unless", [])),
        advice=[Advice(_conditions(a.get("when", [])), a["text"]) for a in doc.get("advice", [])],
        frameworks=doc["frameworks"], tags=doc.get("tags", []), sources=doc["sources"], verify=doc["verify"],
        path=path, silent=bool(doc.get("silent", False)),
    )


def shipped_dir() -> Path:
    return KB_DIR / "entries"


def index_path() -> Path:
    return KB_DIR / "index" / "index.json"


def kb_dirs(extra_dirs: list[str | Path] = ()) -> list[Path]:
    """Where entries come from, later ones winning: shipped, then VLKB_KB_PATH (os.pathsep-separated),
    then the --kb directories."""
    env = [p for p in os.environ.get("VLKB_KB_PATH", "").split(os.pathsep) if p]
    return [shipped_dir(), *map(Path, env), *map(Path, extra_dirs)]


def load(extra_dirs: list[str | Path] = (), parsed: dict[str, dict] | None = None) -> list[Entry]:
    """Every entry, shipped first; an extra entry with a shipped id replaces it. `parsed`: the shipped
    entries' YAML as `kb fit` stored it (parsed_docs)."""
    by_id: dict[str, Entry] = {}
    for directory in kb_dirs(extra_dirs):
        if not directory.is_dir():
            raise EntryError(f"{directory}: not a directory of KB entries")
        shipped = directory.resolve() == shipped_dir().resolve()
        for path in sorted(directory.rglob("*.yaml")):
            stored = (parsed or {}).get(str(path.relative_to(directory))) if shipped else None
            entry = load_entry(path, compile_check=not shipped, parsed=stored)
            by_id[entry.id] = entry
    return list(by_id.values())


def read_index(path: Path, cache_dir: Path | None = None, raw: bytes | None = None) -> dict:
    """The persisted index (kb fit). Parsing its 2.4 MB of JSON is a tenth of `vlkb diagnose` on a
    small log; with `cache_dir`, a marshal copy keyed by the file's bytes and the interpreter's
    marshal format is read instead (plain data only: marshal builds no objects of other types and
    runs no code). A copy that cannot be read or written is ignored. `raw`: the file's bytes, when
    the caller read them."""
    raw = path.read_bytes() if raw is None else raw

    def load_copy(data: bytes) -> dict:
        index = marshal.loads(data)
        if not isinstance(index, dict):
            raise ValueError("not an index")
        return index

    return kept(cache_dir, "index", ".marshal", [raw, f"marshal {marshal.version} {sys.version_info[:2]}".encode()],
                lambda: json.loads(raw), marshal.dumps, load_copy, (EOFError, ValueError, TypeError))


def load_engine(extra_kb: list[str | Path] = (), cache_dir: Path | None = None):
    """An analyzer Engine over the shipped KB plus `extra_kb` directories, with the persisted index
    (kb/fit.py). The matcher is imported here: listing or linting entries needs none of it.
    `cache_dir`: where start-up work may be kept between runs (the commands pass the user's
    vlkb.home.cache_dir(); a library caller keeps none unless it says so)."""
    from vlkb.analyzer import rx
    from vlkb.analyzer.diagnose import Engine, fit_vectors
    from vlkb.analyzer.scores import Calibration

    if cache_dir is not None:
        rx.keep_at_exit(Path(cache_dir))  # the regexes compiled in full this run, for the next one
    raw = index_path().read_bytes()
    index = read_index(index_path(), cache_dir, raw)
    entries = load(extra_kb, index.get("docs"))
    if index["fingerprint"] == fingerprint(entries):  # the vectors are the index file's: tables kept are named by it
        idf, vectors, source = index["idf"], index["vectors"], raw
    else:  # extra entries changed the corpus: refit in plain Python, same formula
        (idf, vectors), source = fit_vectors(entries), None
    cal = index["calibration"]
    return Engine(entries, idf, vectors, Calibration(cal["coef"], cal["intercept"], cal["threshold"]),
                  index.get("literals"), cache_dir=cache_dir, source=source)
