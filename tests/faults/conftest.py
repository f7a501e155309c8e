from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.rig import Server, observe_command, shell_command, shell_env


def _start(kind: str, tmp: Path) -> Server:
    if kind == "observe":
        return Server(observe_command())
    return Server(shell_command(), shell_env(tmp), cwd=tmp)


@pytest.fixture(params=["observe", "shell"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """A fresh real server over stdio: observe replaying a bundled scenario, or shell on a local bash."""
    srv = _start(request.param, tmp_path)
    try:
        yield srv
    finally:
        if srv.proc.poll() is None:
            srv.close()


@pytest.fixture(scope="module", params=["observe", "shell"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server per kind for a whole module, past its handshake (tests use ids of their own)."""
    srv = _start(request.param, tmp_path_factory.mktemp(request.param))
    srv.handshake()
    try:
        yield srv
    finally:
        if srv.proc.poll() is None:
            assert srv.close() == 0
