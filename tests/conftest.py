"""Fixtures shared by every test area."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def recorded_linux() -> Path:
    """A scenario recorded from a real Linux /proc with `wslmcp scenario record`."""
    return SCENARIOS / "linux-recorded"
