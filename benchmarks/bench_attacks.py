#!/usr/bin/env python3
"""Issue 15's attacks, each run against the installed `vlkb` as a hostile user would: what was tried,
what vlkb did (exit code, its first line of stderr, whether the output stayed inert), its wall time
and its peak RSS (wait4; each input is written by another process, see bench_diagnose.waited).

  python benchmarks/bench_attacks.py [--big-mb 64]

Prints one Markdown table; asserts nothing (the suite's regression tests do, on smaller inputs).
"""
from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_diagnose import waited  # noqa: E402

ROOT = HERE.parent
SAMPLE = ROOT / "data" / "samples" / "ms-swift-minicpmv-dpo-zero2.log"
OOM = ('Traceback (most recent call last):\n  File "t.py", line 1, in <module>\n'
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
# the command a user runs (its entry point), not `python -m vlkb`, which would import a ./vlkb planted in
# the working directory before vlkb itself ran
VLKB = str(Path(sys.executable).with_name("vlkb"))
CONTROL = set(range(0x00, 0x09)) | set(range(0x0B, 0x20)) | {0x7F} | set(range(0x80, 0xA0))


def run(argv: list[str], cwd: Path, env: dict | None = None, stdout=None) -> tuple[int, str, bytes, float, int]:
    """(exit code, first line of stderr (else of stdout), stdout bytes, seconds, peak RSS MiB) of `vlkb argv`."""
    code, seconds, rss, said, err = waited([VLKB, *argv], stdout=stdout, cwd=cwd, env={**os.environ, **(env or {})})
    lines = err.decode("utf-8", "replace").splitlines() or said.decode("utf-8", "replace").splitlines()
    first = next((line for line in lines if line.strip()), "")
    return code, first[:110], said, seconds, rss


def inert(out: bytes) -> str:
    text = out.decode("utf-8", "replace")
    return "inert" if not any(ord(c) in CONTROL for c in text) else "CONTROL CHARACTERS"


def hostile(work: Path, name: str, mb: int) -> Path:
    path = work / f"{name}.log"
    subprocess.run([sys.executable, str(HERE / "mixes.py"), "hostile", name, str(mb << 20), str(path)], check=True)
    return path


def attacks(work: Path, big_mb: int):
    """(attack, input tried, argv, options) for each attack."""
    w = work
    (w / "kb-redos").mkdir()
    (w / "kb-redos" / "x.yaml").write_text(
        "id: redos\ntitle: t\nsymptom: s\nroot_cause: r\nfix: f\npatterns:\n  - regex: '^(a+)+$'\n    weight: 0.9\n"
        "messages: [aaaa]\n"
        "frameworks: [pytorch]\ntags: [x]\nsources:\n  - url: https://example.org/1\nverify:\n  none: 'not replayed'\n")
    (w / "kb-laughs").mkdir()
    laughs = "a: &a [" + ",".join(["x"] * 9) + "]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8))
    (w / "kb-laughs" / "x.yaml").write_text(laughs)
    (w / "kb-huge").mkdir()
    with open(w / "kb-huge" / "x.yaml", "w") as f:
        f.write("id: huge\ntitle: t\nsymptom: |\n")
        for _ in range(200):
            f.write("  " + "x" * (1 << 20) + "\n")
    names = w / "names"
    names.mkdir()
    for name in ["\x1b]52;c;ZXZpbA==\x07clip.log", "\x1b]0;title\x07t.log", "a\r\n::set-env name=X::1.log",
                 "<img src=x onerror=alert(1)> @octocat.log", "br[a]ck[b]et [bold red]x.log"]:
        (names / name).write_text(OOM)
    (names.joinpath(os.fsdecode(b"bad-\xff\xfe-utf8.log"))).write_text(OOM)
    c1 = w / "c1.log"
    c1.write_text("RuntimeError: \u009b31m red \u009d0;title\u009c and \x1b[2J clear\n" + OOM)
    u16 = w / "utf16.log"
    u16.write_bytes("\ufeff".encode("utf-16-le") + OOM.encode("utf-16-le"))
    nuls = w / "nuls.log"
    nuls.write_bytes(b"\0" * 70_000 + OOM.encode())
    cut = w / "cut.log.gz"
    cut.write_bytes(gzip.compress((OOM + "step 1\n" * 200_000).encode())[:-2000])
    bomb = w / "bomb.log.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as f:
        chunk = b"step 1 loss 0.5\n" * 65536
        for _ in range(1 << 10):  # 1 GiB unpacked
            f.write(chunk)
    version = w / "version.log"
    version.write_bytes("transformers==4.\u00b9\n".encode() + OOM.encode())
    plant = w / "plant"
    (plant / "vlkb" / "verify" / "repros").mkdir(parents=True)
    marker = w / "PLANTED-CODE-RAN"
    for mod in ["__init__.py", "verify/__init__.py", "verify/repros/__init__.py"]:
        (plant / "vlkb" / mod).write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    ro = w / "home-under-a-file"  # a home vlkb cannot create (a chmod does not stop root)
    ro.write_text("")
    big = {name: hostile(w, name, big_mb) for name in ["deep-traceback", "distinct-errors", "fat-traceback"]}
    line = hostile(w, "digits-then-error", big_mb)
    yield "one hostile line", f"digits-then-error, {big_mb} MiB", ["diagnose", str(line)], {}
    yield "deep traceback", f"{big_mb} MiB of frames (~{(big_mb << 20) // 60:,} frames)", ["diagnose", str(big["deep-traceback"])], {}
    yield "distinct errors", f"{big_mb} MiB, ~{(big_mb << 20) // 50:,} distinct error lines", ["diagnose", str(big["distinct-errors"])], {}
    yield "fat traceback", f"30 source lines of {big_mb // 30 or 1} MiB", ["diagnose", str(big["fat-traceback"])], {}
    yield "gzip bomb", "1 GiB unpacked from 1 MiB", ["diagnose", str(bomb)], {}
    yield "truncated gzip", "failure in the readable part", ["diagnose", str(cut)], {}
    yield "UTF-16 log", "with BOM (PowerShell >)", ["diagnose", str(u16)], {}
    yield "leading NULs", "70 KB of NUL, then a failure", ["diagnose", str(nuls)], {}
    yield "non-ASCII version digit", "transformers==4.\u00b9", ["diagnose", str(version)], {}
    yield "C0/C1 controls in log text", "CSI, OSC, ST, ESC[2J", ["diagnose", str(c1)], {}
    for fmt in ["text", "markdown", "github", "json", "sarif"]:
        yield f"hostile file names ({fmt})", "OSC 52, title, CR/LF ::set-env, <img>, @mention, [markup], bad UTF-8", \
            ["diagnose", str(names), "--format", fmt, "--no-history"], {}
    yield "--kb regex that backtracks", "^(a+)+$", ["diagnose", "--kb", str(w / "kb-redos"), str(SAMPLE)], {}
    yield "--kb billion laughs", "9 levels of 9 aliases", ["kb", "lint", "--kb", str(w / "kb-laughs")], {}
    yield "--kb 200 MB YAML", "one entry of 200 MiB", ["diagnose", "--kb", str(w / "kb-huge"), str(SAMPLE)], {}
    yield "planted ./vlkb in the working directory", "vlkb/verify/repros/*.py beside the user", \
        ["verify", "loss-nan", "--device", "cpu"], {"cwd": plant, "marker": marker}
    yield "unwritable home", "vlkb history (home under a file)", ["history"], {"env": {"VLKB_HOME": str(ro / "h")}}
    yield "unwritable home", "vlkb kb search (home under a file)", ["kb", "search", "nan"], {"env": {"VLKB_HOME": str(ro / "h")}}
    yield "bad GITHUB_STEP_SUMMARY", "a directory", ["diagnose", "--format", "github", str(SAMPLE)], \
        {"env": {"GITHUB_STEP_SUMMARY": str(w)}}
    yield "stdout on /dev/full", "diagnose", ["diagnose", str(SAMPLE)], {"stdout": "/dev/full"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--big-mb", type=int, default=64)
    args = ap.parse_args()
    print("exit: 0 an entry named, 1 no entry named (unknown, clean, or lint findings), 2 an error said in one line\n")
    print("| attack | input tried | exit | vlkb says (first line of stderr, else stdout) | output | time | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for attack, tried, argv, opt in attacks(work, args.big_mb):
            stdout = open(opt["stdout"], "wb") if "stdout" in opt else None
            code, err, out, seconds, rss = run(argv, opt.get("cwd", ROOT), opt.get("env"), stdout=stdout)
            if stdout:
                stdout.close()
            said = inert(out)
            if "marker" in opt:
                said = "planted code ran" if opt["marker"].exists() else "planted code not run"
            cell = err.replace("|", "\\|") if err else "-"
            print(f"| {attack} | {tried.replace('|', chr(92) + '|')} | {code} | {cell} | {said} | {seconds:.1f} s | {rss} MiB |")


if __name__ == "__main__":
    main()
