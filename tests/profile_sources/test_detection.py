"""Which CLIs are inspected (mcp-top §2)."""

from __future__ import annotations

import pytest

from .conftest import Layout


def _clis(layout: Layout, cli: str = "all") -> list[str]:
    return [c.cli for c in layout.discover(cli).clis]


def test_nothing_detected_gives_no_clis(layout: Layout) -> None:
    assert _clis(layout) == []


@pytest.mark.parametrize(
    ("rel", "base", "cli"),
    [
        (".claude.json", "home", "claude-code"),
        (".claude/projects/x/keep", "home", "claude-code"),
        (".mcp.json", "project", "claude-code"),
        (".codex/config.toml", "home", "codex"),
        (".codex/sessions/keep", "home", "codex"),
        (".codex/config.toml", "project", "codex"),
        (".cursor/mcp.json", "home", "cursor"),
        (".cursor/mcp.json", "project", "cursor"),
    ],
)
def test_each_detection_path(layout: Layout, rel: str, base: str, cli: str) -> None:
    layout.write(rel, "", base=base)
    assert _clis(layout) == [cli]


def test_claude_settings_alone_do_not_detect(layout: Layout) -> None:
    layout.write(".claude/settings.json", "{}")
    assert _clis(layout) == []


def test_order_is_fixed(layout: Layout) -> None:
    layout.write(".cursor/mcp.json", "{}")
    layout.write(".codex/config.toml", "")
    layout.write(".claude.json", "{}")
    assert _clis(layout) == ["claude-code", "codex", "cursor"]


@pytest.mark.parametrize("cli", ["claude-code", "codex", "cursor"])
def test_explicit_cli_is_always_reported(layout: Layout, cli: str) -> None:
    assert _clis(layout, cli) == [cli]


def test_unknown_cli_is_an_error(layout: Layout) -> None:
    with pytest.raises(ValueError, match="unknown cli"):
        layout.discover("vscode")
