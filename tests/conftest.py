"""Fixtures shared by every test area."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"
_HOME = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """Every process the tests start gets a clean, empty HOME, so a login shell (``bash -lc``, what
    the shell server runs) reads none of this machine's dotfiles. On our machines root's ~/.bashrc
    runs ``pyenv init``, whose rehash lock, left behind when a test kills a login shell at the wrong
    moment, makes every later login shell wait 60 s; and nothing a test writes under ~ (the shell
    servers' temp-file ledgers, a docker context) may touch the real home."""
    home = tempfile.mkdtemp(prefix="wslmcp-test-home-")
    config.stash[_HOME] = home
    os.environ["HOME"] = home
    os.environ["WSLMCP_CACHE_DIR"] = os.path.join(home, "cache")  # even where XDG_CACHE_HOME is set


def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_HOME, None)
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def recorded_linux() -> Path:
    """A scenario recorded from a real Linux /proc with `wslmcp scenario record`."""
    return SCENARIOS / "linux-recorded"
