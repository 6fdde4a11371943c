"""Start one of vlkb's own modules in a child Python without the working directory on its path.

`python -m pkg` puts the current directory first on `sys.path`, so a `./vlkb/...` (or `./yaml.py`,
`./torch.py`) in the directory where a user runs vlkb, say one unpacked from a stranger's log bundle,
would be imported instead of the installed code. Python 3.11+ has `-P` for that; on 3.10 the child
drops the entry itself before it imports anything.
"""
from __future__ import annotations

import sys

_FALLBACK = ("import runpy, sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
             "sys.argv[0] = {module!r}; runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")


def module_command(module: str, *args: str, safe_path_flag: bool | None = None) -> list[str]:
    """argv for `python -m module args...` that never imports from the working directory."""
    if safe_path_flag is None:
        safe_path_flag = sys.version_info >= (3, 11)
    if safe_path_flag:
        return [sys.executable, "-P", "-m", module, *args]
    return [sys.executable, "-c", _FALLBACK.format(module=module), *args]
