"""§5: Claude Code loading regimes from settings layers, one test per rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile import regimes


def resolve(
    tmp_path: Path, layers: dict[str, Any], always_load: bool | None = None
) -> tuple[regimes.Regime, list[str]]:
    home, project = tmp_path / "home", tmp_path / "proj"
    paths = regimes.settings_paths(str(home), str(project), managed=str(tmp_path / "managed.json"))
    for name, path in paths:
        if name in layers:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            content = layers[name]
            Path(path).write_text(
                content if isinstance(content, str) else json.dumps(content), encoding="utf-8"
            )
    warnings: list[str] = []
    signals = regimes.claude_signals(regimes.read_layers(LocalClientFiles(), paths, warnings))
    return regimes.claude_server_regime("srv", "/cfg/.claude.json", always_load, signals), warnings


def env(**values: Any) -> dict[str, Any]:
    return {"env": values}


def test_no_settings_is_unknown_without_evidence(tmp_path: Path) -> None:
    regime, _ = resolve(tmp_path, {})
    assert regime == regimes.Regime("unknown", ())


def test_disable_betas_is_a_hard_upfront_override(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path, {"user": env(CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS="1", ENABLE_TOOL_SEARCH="true")}
    )
    assert regime.name == "upfront"
    assert regime.evidence == (
        f"{tmp_path}/home/.claude/settings.json:env.CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=set",
    )


def test_unrecognized_disable_betas_value_is_an_unknown_signal(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path, {"user": env(CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS="yes", ENABLE_TOOL_SEARCH="true")}
    )
    assert regime.name == "unknown"
    assert [e.split(":", 1)[1] for e in regime.evidence] == [
        "env.CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=unrecognized",
        "env.ENABLE_TOOL_SEARCH=true",
    ]


@pytest.mark.parametrize(
    ("value", "name", "category"),
    [
        ("true", "deferred", "true"),
        (" FALSE ", "upfront", "false"),
        ("auto", "unknown", "auto (threshold mode; upfront if tools fit 10% context, else deferred)"),
        (
            "auto:25",
            "unknown",
            "auto:N (threshold mode; upfront if tools fit configured context percentage, else deferred)",
        ),
        ("auto:101", "unknown", "unrecognized"),
        (True, "unknown", "unrecognized"),
    ],
)
def test_enable_tool_search_categories(tmp_path: Path, value: Any, name: str, category: str) -> None:
    regime, _ = resolve(tmp_path, {"user": env(ENABLE_TOOL_SEARCH=value)})
    assert regime.name == name
    assert regime.evidence == (f"{tmp_path}/home/.claude/settings.json:env.ENABLE_TOOL_SEARCH={category}",)


def test_enable_tool_search_beats_soft_provider_defaults(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path,
        {
            "user": env(
                ENABLE_TOOL_SEARCH="true", ANTHROPIC_BASE_URL="https://x.example", CLAUDE_CODE_USE_VERTEX="1"
            )
        },
    )
    assert regime.name == "deferred" and len(regime.evidence) == 1


def test_true_with_toolsearch_denied_is_a_contradiction(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path, {"user": {**env(ENABLE_TOOL_SEARCH="true"), "permissions": {"deny": [" ToolSearch "]}}}
    )
    assert regime.name == "unknown"
    assert regime.evidence[0].endswith(
        f"contradicts {tmp_path}/home/.claude/settings.json:permissions.deny=ToolSearch"
    )


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("https://proxy.example.com/v1", "upfront"),
        ("https://api.anthropic.com", "unknown"),
        ("not a url", "unknown"),
    ],
)
def test_base_url_host_decides_first_party(tmp_path: Path, url: str, name: str) -> None:
    regime, _ = resolve(tmp_path, {"user": env(ANTHROPIC_BASE_URL=url)})
    assert regime.name == name
    if name == "upfront":
        assert regime.evidence[0].endswith(":env.ANTHROPIC_BASE_URL=non-first-party")
        assert "proxy.example.com" not in regime.evidence[0]


def test_vertex_is_a_default_off_signal_only_as_exact_string(tmp_path: Path) -> None:
    assert resolve(tmp_path, {"user": env(CLAUDE_CODE_USE_VERTEX="1")})[0].name == "upfront"
    assert resolve(tmp_path / "b", {"user": env(CLAUDE_CODE_USE_VERTEX=1)})[0].name == "unknown"


def test_denying_toolsearch_is_upfront_and_scoped_denial_unknown(tmp_path: Path) -> None:
    denied, _ = resolve(tmp_path, {"user": {"permissions": {"deny": ["ToolSearch"]}}})
    assert denied.name == "upfront"
    scoped, _ = resolve(tmp_path / "b", {"user": {"permissions": {"deny": ["ToolSearch(mcp__x)"]}}})
    assert scoped.name == "unknown" and scoped.evidence[0].endswith("permissions.deny=ToolSearch(...)")


def test_keys_resolve_per_key_from_the_highest_layer(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path,
        {
            "local": env(ENABLE_TOOL_SEARCH="false"),
            "project": env(ENABLE_TOOL_SEARCH="true"),
            "user": env(OTHER="1"),
        },
    )
    assert regime == regimes.Regime(
        "upfront", (f"{tmp_path}/proj/.claude/settings.local.json:env.ENABLE_TOOL_SEARCH=false",)
    )


def test_managed_settings_outrank_everything(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path, {"managed": env(ENABLE_TOOL_SEARCH="true"), "local": env(ENABLE_TOOL_SEARCH="false")}
    )
    assert regime.name == "deferred"


def test_unreadable_layer_makes_everything_unknown_and_warns(tmp_path: Path) -> None:
    regime, warnings = resolve(tmp_path, {"project": "{not json", "user": env(ENABLE_TOOL_SEARCH="false")})
    path = f"{tmp_path}/proj/.claude/settings.json"
    assert regime == regimes.Regime(
        "unknown",
        (
            f"{path}: project settings exist but could not be read -- a higher-precedence override cannot be ruled out",
        ),
    )
    assert warnings == [
        f"could not parse {path}: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    ]


def test_non_object_root_counts_as_unreadable(tmp_path: Path) -> None:
    regime, warnings = resolve(tmp_path, {"user": "[1]"})
    assert regime.name == "unknown" and warnings == [
        f"{tmp_path}/home/.claude/settings.json: config root is not an object"
    ]


def test_always_load_is_upfront_with_its_own_evidence_first(tmp_path: Path) -> None:
    regime, _ = resolve(tmp_path, {"user": env(ENABLE_TOOL_SEARCH="true")}, always_load=True)
    assert regime.name == "upfront"
    assert regime.evidence[0] == "/cfg/.claude.json:mcpServers.srv.alwaysLoad=true"
    assert len(regime.evidence) == 2


def test_agreeing_soft_signals_combine_their_evidence(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path, {"user": env(ANTHROPIC_BASE_URL="https://x.example", CLAUDE_CODE_USE_VERTEX="1")}
    )
    assert regime.name == "upfront" and len(regime.evidence) == 2


def test_an_unknown_signal_beside_an_upfront_one_is_unknown(tmp_path: Path) -> None:
    regime, _ = resolve(
        tmp_path,
        {"user": env(CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS="2", ANTHROPIC_BASE_URL="https://x.example")},
    )
    assert regime.name == "unknown" and len(regime.evidence) == 2


def test_codex_and_cursor_are_always_unknown_with_fixed_evidence() -> None:
    from wslmcp.profile.clients import backend, codex, cursor
    from wslmcp.profile.model import ConfiguredServer

    for cli, evidence in (("codex", codex.REGIME_EVIDENCE), ("cursor", cursor.REGIME_EVIDENCE)):
        server = ConfiguredServer(cli=cli, name="s", scope="user", source_path="/c", transport="stdio")  # type: ignore[arg-type]
        regime = backend(cli).loading(None, "", "", "").regime(server)
        assert (regime.name, regime.evidence) == ("unknown", (evidence,))
