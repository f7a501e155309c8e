"""Fixtures shared by every test area."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"
_HOME = pytest.StashKey[str]()


# Hypothesis: ``ci`` (the default, what ``make test`` runs) is derandomized, so a run is repeatable
# and a failure reproduces from its seed-free example; ``fuzz`` (``make fuzz``) draws fresh random
# examples, FUZZ_FACTOR times as many as each test's own budget (``examples``), with no deadline.
FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
FUZZ_FACTOR = 25
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("fuzz", deadline=None, print_blob=True, max_examples=100 * FUZZ_FACTOR)
settings.load_profile("fuzz" if FUZZ else "ci")


def examples(budget: int) -> int:
    """A test's example count: its ``budget`` under ``make test``, many more under ``make fuzz``."""
    return budget * FUZZ_FACTOR if FUZZ else budget


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
