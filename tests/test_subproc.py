"""vlkb's own child processes never import from the working directory (issue 15, code execution):
`python -m` would put it first on sys.path, and a `./vlkb/...` there would run instead of vlkb."""
import subprocess

import pytest

from vlkb.subproc import module_command


@pytest.mark.parametrize("safe_path_flag", [True, False], ids=["-P", "3.10 fallback"])
def test_a_planted_package_in_the_working_directory_is_not_imported(tmp_path, safe_path_flag):
    planted = tmp_path / "vlkb"
    planted.mkdir()
    marker = tmp_path / "pwned"
    (planted / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (planted / "__main__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    cp = subprocess.run(module_command("vlkb", "--help", safe_path_flag=safe_path_flag), cwd=tmp_path,
                        capture_output=True, text=True, timeout=60)
    assert not marker.exists(), "the working directory's vlkb was imported"
    assert cp.returncode == 0 and "diagnose" in cp.stdout
