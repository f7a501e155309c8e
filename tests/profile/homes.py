"""Fixture homes for the profiler tests: scenario homes copied to a real directory.

Fixture files are written for a home at ``/home/user`` (Claude slugs ``-home-user...``). Copying
rewrites both to the real location, so mcp-top and we see the same home at the same path.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
FIXTURE_HOME = "/home/user"
FIXTURE_SLUG = "-home-user"


def slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def scenario_home(name: str) -> Path:
    return SCENARIOS / name / "home"


def copy_home(name: str, dest: Path) -> Path:
    """Copy scenario ``name``'s home to ``dest``, rewriting the fixture home path. Returns dest."""
    source = scenario_home(name)
    for item in sorted(source.rglob("*")):
        rel = item.relative_to(source).as_posix().replace(FIXTURE_SLUG, slug(str(dest)))
        target = dest / rel
        if item.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        data = item.read_bytes()
        if item.suffix in (".json", ".toml", ".jsonl"):
            data = data.replace(FIXTURE_HOME.encode(), str(dest).encode())
        target.write_bytes(data)
        shutil.copystat(item, target)
    return dest
