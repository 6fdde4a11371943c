"""Docs cannot go stale: the README's commands are the ones CI and users run."""
from conftest import ROOT


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = next(l for l in ci.splitlines() if "python -m pytest" in l)
    assert "\n" + command + "\n" in readme


def test_readme_sample_command_uses_a_shipped_sample():
    readme = (ROOT / "README.md").read_text()
    line = next(l for l in readme.splitlines() if l.startswith("python3 -m venv .venv && .venv/bin/pip install -e ."))
    sample = line.rsplit(" ", 1)[1]
    assert (ROOT / sample).is_file()


def test_the_readme_example_is_the_samples_real_report(run_vlkb):
    """The README opens on `vlkb diagnose` of the bundled sample: every line it shows is a line of the
    real report, in the same order ("..." stands for lines left out)."""
    readme = (ROOT / "README.md").read_text()
    command = "$ vlkb diagnose data/samples/ms-swift-minicpmv-dpo-zero2.log\n"
    shown = readme[readme.index(command) + len(command):].split("```", 1)[0].splitlines()
    code, out, _ = run_vlkb("diagnose", "--no-history", "data/samples/ms-swift-minicpmv-dpo-zero2.log")
    real = [line.rstrip() for line in out.splitlines()]
    at = 0
    for line in (l.rstrip() for l in shown if l.strip() != "..."):
        assert line in real[at:], f"README line not in the report (or out of order): {line!r}"
        at = real.index(line, at) + 1
    assert code == 0 and len([l for l in shown if l.strip()]) >= 20


def _commands(group, prefix=()):
    import click

    for name, cmd in group.commands.items():
        yield prefix + (name,), cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, prefix + (name,))


def test_every_command_has_help_with_an_example_and_is_in_the_readme():
    """STYLE.md 10: a new command cannot ship undocumented."""
    from vlkb.cli import cli

    readme = (ROOT / "README.md").read_text()
    for path, cmd in _commands(cli):
        assert cmd.help and "Example" in cmd.help, f"vlkb {' '.join(path)}: help needs an Example"
        assert f"vlkb {' '.join(path)}" in readme, f"vlkb {' '.join(path)} is not in the README"


def test_the_example_workflow_uses_real_options():
    import yaml

    flow = yaml.safe_load((ROOT / "examples" / "github-actions.yml").read_text())
    steps = flow["jobs"]["smoke"]["steps"]
    script = next(s["run"] for s in steps if s.get("name") == "Triage with vlkb")
    for fmt in ("markdown", "github", "sarif"):
        assert f"--format {fmt}" in script
    from vlkb.cli import diagnose

    options = {o for p in diagnose.params for o in p.opts}
    used = set(__import__("re").findall(r"(--[a-z-]+)", script)) - {"--paginate", "--jq", "--repo", "--body-file"}
    assert used <= options, used - options
