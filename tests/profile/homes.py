"""Fixture homes for the profiler tests: scenario homes copied to a real directory.

Fixture files are written for a home at ``/home/user`` (Claude slugs ``-home-user...``). Copying
rewrites both to the real location, so mcp-top and we see the same home at the same path.

A config may launch the shared test server (``tests/servers/stdio_server.py``) from inside the
home, e.g. ``/home/user/.servers/stdio_server.py``: the scenario does not carry a copy of it (its
replay uses recorded answers), so the copy installs the test server at every such path it names.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

from tests.servers import STDIO_SERVER

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
TEST_SERVER = STDIO_SERVER
FIXTURE_HOME = "/home/user"
FIXTURE_SLUG = "-home-user"
_NAMED_TEST_SERVER = re.compile(re.escape(FIXTURE_HOME).encode() + rb"/([^\"'\s]*/)?stdio_server\.py")


def slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def scenario_home(name: str) -> Path:
    return SCENARIOS / name / "home"


def copy_home(name: str, dest: Path) -> Path:
    """Copy scenario ``name``'s home to ``dest``, rewriting the fixture home path. Returns dest."""
    source = scenario_home(name)
    named: set[str] = set()
    for item in sorted(source.rglob("*")):
        rel = item.relative_to(source).as_posix().replace(FIXTURE_SLUG, slug(str(dest)))
        target = dest / rel
        if item.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        data = item.read_bytes()
        if item.suffix in (".json", ".toml", ".jsonl"):
            named.update(
                m.group(0).decode()[len(FIXTURE_HOME) + 1 :] for m in _NAMED_TEST_SERVER.finditer(data)
            )
            data = data.replace(FIXTURE_HOME.encode(), str(dest).encode())
        target.write_bytes(data)
        shutil.copystat(item, target)
    for rel in sorted(named):
        server = dest / rel
        if ".." in Path(rel).parts:
            raise ValueError(f"{name}: a config names a test server outside the home: {rel}")
        if not server.exists():  # a file the scenario does carry is never replaced
            server.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(TEST_SERVER, server)
    return dest


def stdio_servers_home(base: Path, servers: int, sleep_s: float, tools: int = 5) -> Path:
    """A home whose ``.claude.json`` runs ``servers`` copies of the test server (``tools`` tools
    each, ``sleep_s`` before the first answer): the benchmarks' query workload."""
    home = base / f"home-{servers}x{sleep_s}"
    home.mkdir(parents=True)
    spec = {
        f"srv{i}": {
            "command": sys.executable,
            "args": [str(TEST_SERVER), "--tools", str(tools), "--sleep", str(sleep_s)],
        }
        for i in range(servers)
    }
    (home / ".claude.json").write_text(json.dumps({"mcpServers": spec}), encoding="utf-8")
    return home
