"""Loading regimes: whether a server's tool definitions load upfront, deferred, or unknown.

Claude Code's regime comes only from settings files, highest precedence first: managed, local
(``PROJECT/.claude/settings.local.json``), project (``PROJECT/.claude/settings.json``), user
(``HOME/.claude/settings.json``). Each key resolves on its own from the highest layer whose section
holds it. Evidence names the file, the key and a category, never a raw value. The process
environment is never read. A client whose regime is not observable locally (Codex, Cursor) gets
``fixed_regime``: unknown, with its backend's evidence.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.configs.reading import read_json

MANAGED_SETTINGS_LINUX = "/etc/claude-code/managed-settings.json"
UPFRONT = "upfront"
DEFERRED = "deferred"
UNKNOWN = "unknown"

_MISSING = object()


@dataclass(frozen=True)
class Signal:
    regime: str
    evidence: str
    override: bool = False


@dataclass(frozen=True)
class Regime:
    name: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class _Layer:
    name: str
    path: str
    settings: dict[str, Any] | None
    unreadable: bool


def settings_paths(home: str, project: str, managed: str = MANAGED_SETTINGS_LINUX) -> list[tuple[str, str]]:
    return [
        ("managed", managed),
        ("local", _join(project, ".claude/settings.local.json")),
        ("project", _join(project, ".claude/settings.json")),
        ("user", _join(home, ".claude/settings.json")),
    ]


def _join(base: str, rel: str) -> str:
    return posixpath.join(base, *rel.split("/"))


def read_layers(files: ClientFiles, paths: Sequence[tuple[str, str]], warnings: list[str]) -> list[_Layer]:
    """Read every settings layer that exists; read failures become config warnings.

    A layer exists when it can be stat'ed (as ``os.path.exists`` tells): one behind an unsearchable
    directory is absent, not unreadable.
    """
    layers = []
    for name, path in paths:
        if files.stat(path) is None:
            layers.append(_Layer(name, path, None, False))
            continue
        loaded = read_json(files, path)
        if loaded.warning is not None:
            warnings.append(loaded.warning)
        layers.append(_Layer(name, path, loaded.root, loaded.warning is not None))
    return layers


def _resolve(layers: Sequence[_Layer], section: str, key: str) -> tuple[Any, str | None]:
    for layer in layers:
        if layer.settings is None:
            continue
        block = layer.settings.get(section)
        if isinstance(block, dict) and key in block:
            return block[key], layer.path
    return _MISSING, None


def _empty(value: Any) -> bool:
    return value is _MISSING or value is None or value == ""


def tool_search_category(value: Any) -> str | None:
    if _empty(value):
        return None
    if not isinstance(value, str):
        return "unrecognized"
    word = value.strip().casefold()
    if word in ("true", "false", "auto"):
        return word
    head, sep, threshold = word.partition(":")
    if head == "auto" and sep and threshold.isdigit() and 0 <= int(threshold) <= 100:
        return "auto:N"
    return "unrecognized"


def _tool_search_evidence(path: str | None, category: str) -> str:
    text = f"{path}:env.ENABLE_TOOL_SEARCH={category}"
    if category == "auto":
        return text + " (threshold mode; upfront if tools fit 10% context, else deferred)"
    if category == "auto:N":
        return text + " (threshold mode; upfront if tools fit configured context percentage, else deferred)"
    return text


def base_url_is_third_party(value: Any) -> bool:
    if _empty(value) or not isinstance(value, str):
        return False
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(value).hostname or "").casefold()
    except ValueError:
        return False
    return bool(host) and host != "anthropic.com" and not host.endswith(".anthropic.com")


def claude_signals(layers: Sequence[_Layer]) -> list[Signal]:
    """The global Tool Search signals, in the documented order of strength."""
    broken = next((layer for layer in layers if layer.unreadable), None)
    if broken is not None:
        return [
            Signal(
                UNKNOWN,
                f"{broken.path}: {broken.name} settings exist but could not be read -- a "
                "higher-precedence override cannot be ruled out",
            )
        ]
    signals: list[Signal] = []
    betas, betas_path = _resolve(layers, "env", "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS")
    if not _empty(betas):
        if betas == "1":
            return [Signal(UPFRONT, f"{betas_path}:env.CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=set", True)]
        signals.append(
            Signal(UNKNOWN, f"{betas_path}:env.CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=unrecognized")
        )

    deny, deny_path = _resolve(layers, "permissions", "deny")
    rules = [r.strip() for r in deny if isinstance(r, str)] if isinstance(deny, list) else []
    denies = any(r == "ToolSearch" for r in rules)
    scoped = any(r.startswith("ToolSearch(") and r.endswith(")") for r in rules)

    search, search_path = _resolve(layers, "env", "ENABLE_TOOL_SEARCH")
    category = tool_search_category(search)
    if category is not None:
        evidence = _tool_search_evidence(search_path, category)
        if category == "true" and denies:
            signals.append(Signal(UNKNOWN, f"{evidence} contradicts {deny_path}:permissions.deny=ToolSearch"))
        elif category == "false":
            signals.append(Signal(UPFRONT, evidence))
        elif category == "true":
            signals.append(Signal(DEFERRED, evidence))
        else:
            signals.append(Signal(UNKNOWN, evidence))
        return signals

    base_url, base_url_path = _resolve(layers, "env", "ANTHROPIC_BASE_URL")
    if base_url_is_third_party(base_url):
        signals.append(Signal(UPFRONT, f"{base_url_path}:env.ANTHROPIC_BASE_URL=non-first-party"))
    vertex, vertex_path = _resolve(layers, "env", "CLAUDE_CODE_USE_VERTEX")
    if vertex == "1":
        signals.append(Signal(UPFRONT, f"{vertex_path}:env.CLAUDE_CODE_USE_VERTEX=1"))
    if signals:
        return signals
    if denies:
        return [Signal(UPFRONT, f"{deny_path}:permissions.deny=ToolSearch")]
    if scoped:
        return [Signal(UNKNOWN, f"{deny_path}:permissions.deny=ToolSearch(...)")]
    return []


def claude_server_regime(
    name: str, source_path: str, always_load: bool | None, signals: Sequence[Signal]
) -> Regime:
    evidence = tuple(s.evidence for s in signals)
    if always_load is True:
        return Regime(UPFRONT, (f"{source_path}:mcpServers.{name}.alwaysLoad=true", *evidence))
    if any(s.override for s in signals):
        return Regime(UPFRONT, evidence)
    regimes = {s.regime for s in signals}
    if not regimes:
        return Regime(UNKNOWN, ())
    if UNKNOWN in regimes or len(regimes) > 1:
        return Regime(UNKNOWN, evidence)
    return Regime(next(iter(regimes)), evidence)


def fixed_regime(evidence: str) -> Regime:
    """The regime of a client whose loading is not observable locally: unknown, and why."""
    return Regime(UNKNOWN, (evidence,))
