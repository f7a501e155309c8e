"""Homes whose ``.claude.json`` launches real stdio test servers, with optional measured usage."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from tests.profile.homes import TEST_SERVER, slug


def home_with(base: Path, tools: dict[str, int], calls: dict[str, int] | None = None) -> Path:
    """``.claude.json`` runs one test server per entry (that many tools); ``calls`` writes a Claude
    Code 2.x transcript calling each server's first tool that many times (measured usage)."""
    home = base / "home"
    home.mkdir()
    spec = {
        name: {"command": sys.executable, "args": [str(TEST_SERVER), "--tools", str(count)]}
        for name, count in tools.items()
    }
    (home / ".claude.json").write_text(json.dumps({"mcpServers": spec}), encoding="utf-8")
    if calls is not None:
        project = home / ".claude" / "projects" / slug(str(home))
        project.mkdir(parents=True)
        now = datetime.now(UTC).isoformat()
        lines = [{"type": "user", "version": "2.1.0", "timestamp": now, "message": {"content": "hi"}}]
        for name, count in calls.items():
            lines.extend(
                {
                    "type": "assistant",
                    "version": "2.1.0",
                    "timestamp": now,
                    "message": {
                        "content": [
                            {"type": "tool_use", "id": f"{name}-{i}", "name": f"mcp__{name}__tool_00000"}
                        ]
                    },
                }
                for i in range(count)
            )
        (project / "s1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return home
