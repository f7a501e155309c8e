from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.rig import Server, observe_command, shell_command, shell_env


@pytest.fixture(params=["observe", "shell"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """A real server over stdio: observe replaying a bundled scenario, or shell on a local bash."""
    if request.param == "observe":
        srv = Server(observe_command())
    else:
        srv = Server(shell_command(), shell_env(tmp_path))
    try:
        yield srv
    finally:
        if srv.proc.poll() is None:
            srv.close()
