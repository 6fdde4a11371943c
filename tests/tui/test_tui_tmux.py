"""A real terminal: tmux runs `vlkb tui` on a real log (and on the same log piped into stdin), keys go
in with send-keys, and capture-pane shows what a user would see. CI installs tmux (.ci/run)."""
import os
import shlex
import shutil
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")


class Tmux:
    def __init__(self, tmp_path, command: str):
        self.socket = f"vlkb-test-{os.getpid()}-{time.monotonic_ns()}"
        env = {"VLKB_HOME": str(tmp_path / "home"), "TERM": "xterm-256color", "PATH": os.environ["PATH"],
               "HOME": str(tmp_path), "LANG": "C.UTF-8"}
        wrapped = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items()) + " " + command
        self.tmux("-f", "/dev/null", "start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
                  "set-option", "-g", "status", "off", ";",  # else the pane shrinks a row after it starts
                  "new-session", "-d", "-x", "100", "-y", "30", "-s", "vlkb", wrapped)

    def tmux(self, *args) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30,
                              check=False).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-S", "-", "-t", "vlkb")  # with what scrolled off

    def wait_for(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{self.screen()}")

    def wait_gone(self, text: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while text in self.screen():
            assert time.monotonic() < deadline, f"{text!r} stayed on screen"
            time.sleep(0.2)

    def keys(self, *keys) -> None:
        self.tmux("send-keys", "-t", "vlkb", *keys)

    def exited(self, timeout: float = 20) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.tmux("display-message", "-p", "-t", "vlkb", "#{pane_dead}").strip() == "1":
                return True
            time.sleep(0.2)
        return False

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def tmux(tmp_path, logs):
    sessions = []

    def start(command: str) -> Tmux:
        sessions.append(Tmux(tmp_path, f"sh -c {shlex.quote(f'cd {tmp_path} && {command}')}"))
        return sessions[-1]
    yield start
    for s in sessions:
        s.close()


VLKB = f"{shlex.quote(sys.executable)} -m vlkb"


def test_diagnosis_in_a_real_terminal(tmux, logs):
    t = tmux(f"{VLKB} tui {logs['known-ranks']}")
    screen = t.wait_for("known-ranks.log  line 14/")  # the log pane, on the root line
    assert "KNOWN FAILURE" in screen and "zero-grad-reduced-twice" in screen
    assert "Next evidence" in screen  # the footer
    t.keys("g")
    t.wait_for("go to line")
    t.keys("3", "Enter")
    t.wait_for("line 3/")
    t.keys("?")
    t.wait_for("vlkb tui: keys")
    t.keys("Escape")  # alone: an Escape followed at once by q would read as Alt+q
    t.wait_gone("vlkb tui: keys")
    t.keys("q")
    assert t.exited(), t.screen()


def test_stdin_then_keys_from_the_terminal(tmux, logs):
    t = tmux(f"cat {logs['known']} | {VLKB} tui -")
    screen = t.wait_for("stdin.log  line")
    assert "KNOWN FAILURE" in screen
    t.keys("b")
    t.wait_for("search the KB")
    t.keys("q")
    assert t.exited(), t.screen()


def test_nothing_piped_is_a_clear_error(tmux):
    t = tmux(f"{VLKB} tui - ; echo exit=$?")
    screen = t.wait_for("exit=")
    assert "nothing is piped into stdin" in screen and "exit=2" in screen
