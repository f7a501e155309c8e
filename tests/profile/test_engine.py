"""The engine pipeline on a replayed scenario: time comes from the Clock, files from ClientFiles,
and the domain modules never reach for the environment, subprocesses or the mcp SDK."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.profile.homes import SCENARIOS
from wslmcp.profile import engine
from wslmcp.profile.configs import discover
from wslmcp.wiring.replay import replay

DOMAIN = Path(engine.__file__).parent
DOMAIN_MODULES = [
    *(
        DOMAIN / f"{name}.py"
        for name in (
            "attribution",
            "coverage",
            "definitions",
            "diff",
            "engine",
            "prune",
            "regimes",
            "report_homes",
            "report_human",
            "report_json",
            "snapshot",
            "tokens",
            "verdicts",
            "usage_windows",
        )
    ),
    *sorted((DOMAIN / "transcripts").glob("*.py")),
    *sorted((DOMAIN / "clients").glob("*.py")),
]
FORBIDDEN = {
    "os",
    "subprocess",
    "mcp",
    "wslmcp.boundaries.mcp_stdio",
    "wslmcp.boundaries.mcp_http",
    "wslmcp.boundaries.windows_home",
    "wslmcp.wiring",
    "wslmcp.fakes",
}


def run_usage(days_later: float, **options: object) -> engine.Report:
    boundaries = replay(SCENARIOS / "profile-usage")
    boundaries.clock.advance(days_later * 86400)  # type: ignore[attr-defined]
    request = engine.Request(home="/home/user", project="/home/user/proj", cwd="/home/user/proj", **options)  # type: ignore[arg-type]
    discovery = discover(boundaries.client_files, request.home, request.project, request.cli)
    return engine.run(
        boundaries.client_files,
        boundaries.mcp_launcher,
        boundaries.clock,
        request,
        discovery=discovery,
    )


def test_the_window_follows_the_clock() -> None:
    today = run_usage(0)
    claude = next(c for c in today.clis if c.cli == "claude-code")
    assert claude.coverage.in_window == 2
    later = run_usage(40)
    claude = next(c for c in later.clis if c.cli == "claude-code")
    assert claude.coverage.in_window == 0
    assert claude.coverage.usage_note == "no usable sessions in the window -- usage unknown"
    assert {r.verdict for r in claude.rows} == {"unknown"}


def test_every_cli_section_comes_in_reference_order() -> None:
    assert [c.cli for c in run_usage(0).clis] == ["claude-code", "codex", "cursor"]
    assert [c.cli for c in run_usage(0, cli="codex").clis] == ["codex"]


def test_domain_modules_import_no_environment_process_or_sdk() -> None:
    for module in DOMAIN_MODULES:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not any(name == f or name.startswith(f + ".") for f in FORBIDDEN), (
                    f"{module.name} imports {name}"
                )
