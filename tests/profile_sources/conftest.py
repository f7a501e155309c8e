"""Helpers for the profiler's sources tests: fixture homes built in tmp_path."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.servers import STDIO_SERVER
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile.configs import discover
from wslmcp.profile.model import CliDiscovery, DiscoveryResult

SERVER = str(STDIO_SERVER)
PYTHON = sys.executable


@dataclass
class Layout:
    home: Path
    project: Path

    def write(self, rel: str, content: str | bytes | dict[str, Any], *, base: str = "home") -> Path:
        root = self.home if base == "home" else self.project
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            content = json.dumps(content)
        if isinstance(content, str):
            content = content.encode("utf-8")
        path.write_bytes(content)
        return path

    def discover(self, cli: str = "all") -> DiscoveryResult:
        return discover(LocalClientFiles(), str(self.home), str(self.project), cli)

    def one(self, cli: str) -> CliDiscovery:
        found = self.discover(cli).cli(cli)
        assert found is not None
        return found


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    return Layout(tmp_path / "home", tmp_path / "project")


def stdio(*args: str, **extra: Any) -> dict[str, Any]:
    """A config entry launching the test server."""
    return {"command": PYTHON, "args": [SERVER, *args], **extra}
