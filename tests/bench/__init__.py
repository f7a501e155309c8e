"""Benchmarks: ``make bench`` runs every ``bench_*.py`` module's ``main()`` here, in name order.

Each prints its own numbers and, where there is a baseline, the ratio against it measured in the
same process. Nothing here asserts a duration.
"""

from __future__ import annotations

import os
from pathlib import Path


def installed_env(pycache: Path) -> dict[str, str]:
    """This environment for fresh processes with bytecode, as an installed package has it (pip
    compiles at install; our sources' bytecode goes to ``pycache``, written by a warm-up run, which
    ``PYTHONDONTWRITEBYTECODE`` would forbid)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env
