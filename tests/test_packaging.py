"""One import package, a light core, a fresh index."""
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES

HEAVY = ("torch", "transformers", "deepspeed", "textual", "sklearn", "scipy", "numpy", "sqlite_utils")


def test_core_never_imports_heavy_modules():
    code = f"""
import sys
import vlkb.analyzer, vlkb.kb
d = vlkb.kb.load_engine().diagnose([{str(SAMPLES / 'ms-swift-minicpmv-dpo-zero2.log')!r}])
from vlkb.analyzer.report import text, json_, markdown
text.render(d); json_.render(d); markdown.render(d)
assert d.verdict == "known", d.verdict
print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_diagnose_command_never_imports_heavy_modules(tmp_path):
    """The whole command, history recording and every CI format included."""
    for fmt in ("text", "markdown", "github", "sarif", "json"):
        code = f"""
import atexit, sys
atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}), file=sys.stderr))
sys.argv = ["vlkb", "diagnose", {str(SAMPLES / 'ms-swift-minicpmv-dpo-zero2.log')!r}, "--format", {fmt!r},
            "--history", {str(tmp_path / 'h.db')!r}]
from vlkb.cli import main
main()
"""
        cp = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert cp.returncode == 0 and cp.stderr.strip().splitlines()[-1] == "[]", (fmt, cp.stderr[-500:])


def test_the_format_registry_is_read_without_the_parser():
    """`vlkb diagnose --help` lists the registry's formats: reading it loads no parser or matcher, and the
    core's public names still load on first use."""
    code = """
import sys
from vlkb.analyzer.report import FORMATS
light = sorted(m for m in sys.modules if m.startswith('vlkb'))
from vlkb.analyzer import Engine, InputError
print(light, Engine.__module__, InputError.__module__)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["['vlkb',", "'vlkb.analyzer',", "'vlkb.analyzer.report']", "vlkb.analyzer.diagnose",
                           "vlkb.analyzer.reader"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the checkout: setuptools' build/ folder in the checkout keeps
    files from earlier builds, which would hide a package the configuration leaves out."""
    import shutil

    src, out = tmp_path_factory.mktemp("src") / "vlkb", tmp_path_factory.mktemp("wheel")
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", ".pytest_cache",
                                                             "__pycache__", ".hypothesis", "corpus"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(src)], check=True)
    return next(out.glob("vlkb-*.whl"))


def test_wheel_has_one_top_level_package_with_the_kb(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"vlkb"}, top
    assert "vlkb/kb/index/index.json" in names
    assert any(n.startswith("vlkb/kb/entries/zero-grad-reduced-twice/") and n.endswith(".yaml") for n in names)
    assert any(n.endswith(".pos-ms-swift-dpo-minicpmv.log") for n in names)
    assert any(n.startswith("vlkb/data/samples/") for n in names)
    # every package of the checkout is in the wheel (verify/repros once was not: `vlkb verify` crashed)
    tops = {"vlkb": "vlkb", "analyzer": "vlkb/analyzer", "kb": "vlkb/kb", "tui": "vlkb/tui", "verify": "vlkb/verify",
            "data": "vlkb/data"}
    packages = [init.relative_to(ROOT) for top in tops for init in (ROOT / top).rglob("__init__.py")]
    missing = [str(p) for p in packages if f"{tops[p.parts[0]]}/{'/'.join(p.parts[1:])}" not in names]
    assert len(packages) >= 8 and not missing, missing


def test_the_wheel_installed_alone_diagnoses_the_sample_and_lists_its_repros(wheel, tmp_path):
    """`pip install vlkb-*.whl` into a new venv (not this checkout's editable install): the command it
    installs diagnoses the packaged sample and lists the packaged repros, from a directory outside the
    checkout. Dependencies come from this venv's site-packages on the path (no network), where the
    editable install's own finder is never activated, so only the wheel's vlkb can be imported."""
    import sysconfig
    import venv

    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    bindir = env / ("Scripts" if sys.platform == "win32" else "bin")
    python = bindir / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "deps-from-test-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True, cwd=tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    run = lambda *args: subprocess.run([str(bindir / "vlkb"), *args], capture_output=True, text=True,  # noqa: E731
                                       cwd=work, env={"PATH": str(bindir), "VLKB_HOME": str(tmp_path / "home")})
    where = subprocess.run([str(python), "-c", "import vlkb; print(vlkb.__file__)"], capture_output=True,
                           text=True, check=True, cwd=work).stdout.strip()
    assert Path(where).is_relative_to(site), where  # the wheel's copy, not the checkout
    assert run("--help").returncode == 0
    samples = Path(where).parent / "data" / "samples"
    got = run("diagnose", str(samples / "ms-swift-minicpmv-dpo-zero2.log"), "--format", "json", "--no-history")
    assert got.returncode == 0, got.stderr[-800:]
    d = json.loads(got.stdout)
    assert d["verdict"] == "known" and d["matches"][0]["entry"] == "zero-grad-reduced-twice"
    listed = run("verify", "--list", "--format", "json")
    assert listed.returncode == 0, listed.stderr[-800:]
    from vlkb.verify.catalog import REPROS

    assert {r["repro"] for r in json.loads(listed.stdout)} == set(REPROS)
    # every repro `vlkb verify` would start is in the wheel (found, not run: torch is not needed to look)
    found = subprocess.run([str(python), "-c", "import importlib.util as u; from vlkb.verify.catalog import REPROS; "
                            "print(*(u.find_spec('vlkb.verify.repros.' + r.module).origin for r in REPROS.values()))"],
                           capture_output=True, text=True, check=True, cwd=work).stdout.split()
    assert len(found) == len(REPROS) and all(Path(f).is_relative_to(site) for f in found), found


def test_persisted_tfidf_equals_scikit_learn():
    from sklearn.feature_extraction.text import TfidfVectorizer

    from vlkb.analyzer import tfidf
    from vlkb.kb import load
    from vlkb.kb.loader import index_path

    entries = load()
    docs = [e.document() for e in entries]
    vec = TfidfVectorizer(**tfidf.SKLEARN_ARGS).fit(docs)
    index = json.loads(index_path().read_text())
    probes = docs + [SAMPLES.joinpath(p.name).read_text() for p in SAMPLES.glob("*.log")] + \
        ["RuntimeError: Expected to mark a variable ready only once", ""]
    terms = vec.get_feature_names_out()
    refit = tfidf.fit_idf(docs)
    for text in probes:
        row = vec.transform([text])
        want = {terms[j]: v for j, v in zip(row.indices, row.data)}
        for got in (tfidf.transform(text, index["idf"]), tfidf.transform(text, refit)):
            assert got.keys() == want.keys()
            assert all(abs(got[t] - want[t]) < 1e-9 for t in want)


def test_shipped_index_is_fresh():
    from vlkb.kb import load
    from vlkb.kb.loader import fingerprint, index_path

    index = json.loads(index_path().read_text())
    assert index["fingerprint"] == fingerprint(load()), "KB changed since the index was built: run `vlkb kb fit`"


def test_the_index_is_read_through_a_marshal_copy_that_equals_the_json(tmp_path):
    """The start-up copy of the index (kb/loader.read_index) holds what the JSON holds; a copy that is
    cut or not marshal at all is read from the JSON again and rewritten; another index file (a refit)
    gets its own copy, never the old one."""
    import json

    from vlkb.kb.loader import index_path, read_index

    expected = json.loads(index_path().read_text(encoding="utf-8"))
    assert read_index(index_path(), tmp_path) == expected
    (copy,) = tmp_path.glob("index-*.marshal")
    good = copy.read_bytes()
    assert read_index(index_path(), tmp_path) == expected
    for bad in (good[: len(good) // 3], b"\x00not marshal", b""):
        copy.write_bytes(bad)
        assert read_index(index_path(), tmp_path) == expected
        assert copy.read_bytes() == good
    other = tmp_path / "index.json"
    other.write_text(json.dumps({"fingerprint": "x", "docs": {}}), encoding="utf-8")
    assert read_index(other, tmp_path) == {"fingerprint": "x", "docs": {}}
    assert len(list(tmp_path.glob("index-*.marshal"))) == 2


def test_the_start_up_cache_keeps_a_bounded_number_of_copies_of_each_kind(tmp_path):
    """Every refit or --kb set makes another copy: only the KEEP newest of a kind stay, the one just
    made among them, and another kind's copies are not touched."""
    import os

    from vlkb.analyzer.diskcache import KEEP, kept

    made = []
    for i in range(KEEP + 3):
        kept(tmp_path, "thing", ".bin", [str(i).encode()], lambda i=i: i, lambda r: str(r).encode(), int, (ValueError,))
        (newest,) = set(tmp_path.glob("thing-*.bin")) - set(made)
        os.utime(newest, ns=(i * 10**9, i * 10**9))  # distinct times, whatever the file system's resolution
        made.append(newest)
        kept(tmp_path, "other", ".bin", [b"x"], lambda: 0, lambda r: b"0", int, (ValueError,))
    left = set(tmp_path.glob("thing-*.bin"))
    assert left == set(made[-KEEP:])
    assert len(list(tmp_path.glob("other-*.bin"))) == 1
    assert kept(tmp_path, "thing", ".bin", [str(KEEP + 2).encode()], lambda: -1, str.encode, int, (ValueError,)) == KEEP + 2


def test_stored_entries_were_validated_under_todays_schema():
    """Start-up skips validating a shipped entry that `kb fit` stored validated under the same schema
    and validator; after either changes, every entry is validated again at each start-up (slower, still
    right) until `kb fit` runs. An entry the schema now refuses is refused at load, stored or not."""
    import pytest

    from vlkb.kb.loader import index_path, load
    from vlkb.kb.schema import EntryError, schema_hash

    docs = json.loads(index_path().read_text())["docs"]
    stale = [name for name, d in docs.items() if d.get("schema") != schema_hash()]
    assert not stale, f"{len(stale)} entries stored under another schema: run `vlkb kb fit`"

    name = next(iter(sorted(docs)))
    broken = json.loads(json.dumps(docs))
    del broken[name]["doc"]["fix"]  # a stored doc that today's schema refuses
    broken[name]["schema"] = "an-older-schema"
    with pytest.raises(EntryError, match="'fix': missing"):
        load([], broken)


def test_every_third_party_import_is_declared():
    """What the package imports is what pyproject.toml declares: a dependency or, for the replays
    only, the verify extra (issue 17), for fleet triage only, the ray and parquet extras, and for
    logs behind URLs only, the remote extra (fsspec). Import names map to
    distribution names where they differ."""
    import ast
    import sys
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    meta = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name = lambda spec: spec.split(";")[0].split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip().lower()  # noqa: E731
    declared = {name(d) for d in meta["dependencies"]}
    extras = meta["optional-dependencies"]
    verify = {name(d) for d in extras["verify"]}
    # each optional extra, and the only modules that may import it (lazily, with an install hint)
    optional = {"triage_ray": {name(d) for d in extras["ray"]},
                "triage_cli": {name(d) for d in extras["ray"] + extras["parquet"]},
                "remote": {name(d) for d in extras["remote"]}}
    dist = {"yaml": "pyyaml", "sklearn": "scikit-learn", "sqlite_utils": "sqlite-utils", "ahocorasick_rs": "ahocorasick-rs"}
    missing = []
    for pkg in ("analyzer", "kb", "tui", "verify", "vlkb"):
        for path in (root / pkg).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    tops = [a.name.split(".")[0] for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    tops = [node.module.split(".")[0]]
                else:
                    continue
                for top in tops:
                    if top in sys.stdlib_module_names or top in ("vlkb", "__future__"):
                        continue
                    d = dist.get(top, top).lower()
                    extra = (pkg == "verify" and d in verify) or d in optional.get(path.stem, ())
                    if d not in declared and not extra:
                        missing.append(f"{path.relative_to(root)}: {top}")
    assert not missing, "imported but not declared in pyproject.toml: " + ", ".join(sorted(set(missing)))


def reversed_imports(root: Path) -> list[str]:
    """Every import of a vlkb module that goes to a layer above the importer's, by pyproject's
    [tool.vlkb.layers] and package-dir mapping under `root`; top-level and in-function imports alike."""
    import ast
    import tomllib

    conf = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    dirs = conf["tool"]["setuptools"]["package-dir"]
    layers = conf["tool"]["vlkb"]["layers"]
    order = list(layers)
    prefixes = sorted(((p, order.index(name)) for name, ps in layers.items() for p in ps), key=lambda pl: -len(pl[0]))

    def layer(module):
        return next(i for p, i in prefixes if module == p or module.startswith(p + "."))

    def is_module(name):  # a vlkb module or package, not a name defined inside one
        for pkg, folder in dirs.items():
            if name == pkg or name.startswith(pkg + "."):
                base = root / folder / Path(*name[len(pkg):].lstrip(".").split(".")) if name != pkg else root / folder
                if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
                    return True
        return False

    found = []
    for pkg, folder in dirs.items():
        for path in (root / folder).glob("*.py"):
            me = pkg if path.name == "__init__.py" else f"{pkg}.{path.stem}"
            package = pkg  # what a relative import's first dot means here
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = package.rsplit(".", node.level - 1)[0] if node.level else ""
                    mod = ".".join(filter(None, [base, node.module]))
                    # `from vlkb.kb import fixtures` imports the module vlkb.kb.fixtures; `from vlkb.kb import load`, vlkb.kb
                    names = [f"{mod}.{a.name}" for a in node.names if is_module(f"{mod}.{a.name}")] or [mod]
                else:
                    continue
                for n in names:
                    if n.startswith("vlkb") and is_module(n) and layer(n) > layer(me):
                        found.append(f"{me} ({order[layer(me)]}) imports {n} ({order[layer(n)]})")
    return sorted(set(found))


def test_imports_run_one_way_through_the_layers():
    """The layers of pyproject's [tool.vlkb.layers] (issue 17): core, KB data, tools, interfaces. Every
    import of a vlkb module goes to the importer's own layer or one below it."""
    assert reversed_imports(Path(__file__).resolve().parent.parent) == []


def test_a_reversed_import_is_named(tmp_path):
    """The check on a small tree: the core reaching the CLI, absolutely and relatively, inside a
    function, is named; the CLI reaching the core is not."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools]\npackage-dir = { "vlkb" = "vlkb", "vlkb.analyzer" = "analyzer" }\n'
        '[tool.vlkb.layers]\ncore = ["vlkb.analyzer"]\ninterfaces = ["vlkb"]\n')
    (tmp_path / "vlkb").mkdir()
    (tmp_path / "analyzer").mkdir()
    (tmp_path / "vlkb" / "__init__.py").write_text("")
    (tmp_path / "vlkb" / "cli.py").write_text("from vlkb.analyzer import match\n")
    (tmp_path / "analyzer" / "__init__.py").write_text("")
    (tmp_path / "analyzer" / "match.py").write_text("def f():\n    from vlkb import cli\n    from .. import cli as c\n")
    assert reversed_imports(tmp_path) == ["vlkb.analyzer.match (core) imports vlkb.cli (interfaces)"]


def test_every_module_is_at_most_250_lines():
    """Issue 17: a module that grows past 250 lines is split by concern (ARCHITECTURE.md says where
    each concern lives); every package folder of pyproject's package-dir is counted."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    dirs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    sizes = {path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for folder in dirs.values() for path in (root / folder).glob("*.py")}
    assert len(sizes) > 60
    assert {p: n for p, n in sizes.items() if n > 250} == {}
