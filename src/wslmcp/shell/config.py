"""The shell server's configuration, read once from ``WSL_*`` variables.

``load_config(env)`` is pure: it takes a mapping (``os.environ`` at the CLI, a dict in tests) and
returns a ``ShellConfig`` or raises ``ConfigError`` whose message names the variable and the value.
Every variable is parsed strictly, even when ``WSL_DISTRO`` is unset (a typo is a typo either way).

List format (``WSL_ALLOW_COMMANDS``, ``WSL_DENY_PATTERNS``, ``WSL_ALLOWED_PATHS``): items are
separated by commas; blank items are dropped. For ``WSL_DENY_PATTERNS`` a comma splits only at the
top level of the pattern: a comma inside ``{}``, ``[]`` or ``()`` stays in its pattern (``x{1,3}``
is one pattern), and a comma written ``\\,`` is a literal comma (``a\\,b`` is one pattern that
matches ``a,b``). Patterns are Python ``re`` syntax, compiled case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from wslmcp.shell.guard import Policy
from wslmcp.shell.guard.paths import normalize
from wslmcp.shell.sandbox import SandboxMode, SandboxSettings

LogLevel = Literal["silent", "debug", "info", "warn", "error"]
TransportChoice = Literal["auto", "wsl.exe", "local"]
ApprovalMode = Literal["ask", "never"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("ask", "never")

LOG_LEVELS: tuple[LogLevel, ...] = ("silent", "debug", "info", "warn", "error")
TRANSPORTS: tuple[TransportChoice, ...] = ("auto", "wsl.exe", "local")
TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")

DEFAULT_EXEC_TIMEOUT_MS = 60_000
DEFAULT_MAX_OUTPUT = 100_000
DEFAULT_OUTPUT_CAP_BYTES = 256 * 1024 * 1024
MAX_OUTPUT_CAP_BYTES = 64 * 1024 * 1024 * 1024
DEFAULT_MAX_READ_BYTES = 200_000
MAX_EXEC_TIMEOUT_MS = 24 * 3600 * 1000
DEFAULT_MAX_PROCESSES = 8
DEFAULT_PROCESS_OUTPUT_BYTES = 1 << 20
DEFAULT_PROCESS_MAX_MS = 24 * 3600 * 1000
MAX_PROCESSES_LIMIT = 64
MAX_PROCESS_OUTPUT_LIMIT = 64 * 1024 * 1024
MAX_PROCESS_MS_LIMIT = 7 * 24 * 3600 * 1000
MAX_OUTPUT_LIMIT = 16_000_000
MAX_READ_LIMIT = 64 * 1024 * 1024

_USER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?")
_DISTRO_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_COMMAND_RE = re.compile(r"[A-Za-z0-9_.+-][A-Za-z0-9_.+:@-]*")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")

VARIABLES: tuple[tuple[str, str], ...] = (
    ("WSL_DISTRO", "(unset: not configured)"),
    ("WSL_USER", "(distro default user)"),
    ("WSL_NAME", "= WSL_DISTRO"),
    ("WSL_DESCRIPTION", "(none)"),
    ("WSL_CWD", "(login directory)"),
    ("WSL_READONLY", "false"),
    ("WSL_ALLOW_SUDO", "true"),
    ("WSL_ALLOW_WINDOWS", "false"),
    ("WSL_ALLOW_COMMANDS", "(any command)"),
    ("WSL_DENY_PATTERNS", "(none)"),
    ("WSL_ALLOWED_PATHS", "(any path)"),
    ("WSL_EXEC_TIMEOUT_MS", str(DEFAULT_EXEC_TIMEOUT_MS)),
    ("WSL_MAX_OUTPUT", str(DEFAULT_MAX_OUTPUT)),
    ("WSL_OUTPUT_CAP_BYTES", str(DEFAULT_OUTPUT_CAP_BYTES)),
    ("WSL_MAX_READ_BYTES", str(DEFAULT_MAX_READ_BYTES)),
    ("WSL_MAX_PROCESSES", str(DEFAULT_MAX_PROCESSES)),
    ("WSL_PROCESS_OUTPUT_BYTES", str(DEFAULT_PROCESS_OUTPUT_BYTES)),
    ("WSL_PROCESS_MAX_MS", str(DEFAULT_PROCESS_MAX_MS)),
    ("WSL_MCP_LOG_LEVEL", "info"),
    ("WSL_AUDIT_LOG", "(no audit log)"),
    ("WSL_AUDIT_REQUIRED", "false"),
    ("WSL_APPROVALS", "ask"),
    ("WSLMCP_SHELL_TRANSPORT", "auto"),
    ("WSL_SANDBOX", "auto"),
    ("WSL_SANDBOX_NETWORK", "on"),
    ("WSL_HIDE_PATHS", "(none)"),
)


class ConfigError(ValueError):
    """A malformed variable. ``str(error)`` names the variable and the value it had."""


@dataclass(frozen=True)
class ShellConfig:
    """Everything the shell server was told. ``distro`` None means not configured."""

    distro: str | None
    user: str | None
    name: str
    description: str | None
    cwd: str | None
    policy: Policy
    exec_timeout_ms: int = DEFAULT_EXEC_TIMEOUT_MS
    max_output: int = DEFAULT_MAX_OUTPUT
    output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES
    max_processes: int = DEFAULT_MAX_PROCESSES  # background processes running at once
    process_output_bytes: int = DEFAULT_PROCESS_OUTPUT_BYTES  # output ring of each
    process_max_ms: int = DEFAULT_PROCESS_MAX_MS  # a background process is killed after this long
    log_level: LogLevel = "info"
    transport: TransportChoice = "auto"
    audit_log: str | None = None
    audit_required: bool = False
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    approvals: ApprovalMode = "ask"  # ask a person (MCP elicitation) about refusals they may overrule

    @property
    def configured(self) -> bool:
        return self.distro is not None

    @property
    def user_label(self) -> str:
        return self.user or "(distro default)"


def _get(env: Mapping[str, str], name: str) -> str | None:
    raw = env.get(name)
    if raw is None:
        return None
    value = raw.strip()
    return value or None


def _fail(name: str, value: str, expected: str) -> ConfigError:
    return ConfigError(f"{name} must be {expected} (got {value!r})")


def _boolean(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = _get(env, name)
    if value is None:
        return default
    word = value.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise _fail(name, value, f"one of {', '.join(TRUE_WORDS + FALSE_WORDS)}")


def _integer(env: Mapping[str, str], name: str, default: int, ceiling: int) -> int:
    value = _get(env, name)
    if value is None:
        return default
    if not value.isascii() or not value.isdigit() or int(value) <= 0:
        raise _fail(name, value, "a positive whole number written in decimal digits")
    number = int(value)
    if number > ceiling:
        raise _fail(name, value, f"at most {ceiling}")
    return number


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def split_patterns(value: str) -> list[str]:
    """Split a deny-pattern list at top-level commas (see the module docstring)."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    in_class = False
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            current.append(value[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            # a ']' first in a class (after an optional '^') is a literal, not the end
            lead = 2 if value[i + 1 : i + 2] == "^" else 1
            if value[i + lead : i + lead + 1] == "]":
                current.append(value[i : i + lead + 1])
                i += lead + 1
                continue
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            items.append("".join(current))
            current = []
            i += 1
            continue
        current.append(ch)
        i += 1
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def _deny_patterns(env: Mapping[str, str]) -> tuple[re.Pattern[str], ...]:
    value = _get(env, "WSL_DENY_PATTERNS")
    if value is None:
        return ()
    compiled = []
    for item in split_patterns(value):
        try:
            compiled.append(re.compile(item, re.IGNORECASE))
        except re.error as exc:
            raise ConfigError(
                f"WSL_DENY_PATTERNS has an invalid entry /{item}/: {exc} (got {value!r}; "
                "patterns use Python re syntax, separated by top-level commas)"
            ) from None
    return tuple(compiled)


def _absolute_paths(env: Mapping[str, str], name: str) -> tuple[str, ...] | None:
    value = _get(env, name)
    if value is None:
        return None
    paths = []
    for item in _items(value):
        if not item.startswith("/") or _CONTROL_RE.search(item):
            raise ConfigError(
                f"{name} entries must be absolute paths in the distro; {item!r} is not (got {value!r})"
            )
        paths.append(normalize(item).rstrip("/") or "/")  # the guard's own normalisation
    return tuple(paths) or None


def _allowed_paths(env: Mapping[str, str]) -> tuple[str, ...] | None:
    return _absolute_paths(env, "WSL_ALLOWED_PATHS")


def _sandbox(env: Mapping[str, str]) -> SandboxSettings:
    """``WSL_SANDBOX`` (auto | on | off; the boolean words too), ``WSL_SANDBOX_NETWORK`` (on | off),
    ``WSL_HIDE_PATHS`` (absolute paths, ``*`` for one component; ``/`` would hide everything) and
    ``WSLMCP_SANDBOX_CHECK`` (on | off: the after-command check, off only to measure its cost)."""
    hide = _absolute_paths(env, "WSL_HIDE_PATHS") or ()
    if "/" in hide:
        raise _fail("WSL_HIDE_PATHS", env["WSL_HIDE_PATHS"], "paths below / (hiding / would hide everything)")
    value = (_get(env, "WSL_SANDBOX") or "auto").lower()
    if value not in ("auto", *TRUE_WORDS, *FALSE_WORDS):
        raise _fail("WSL_SANDBOX", env["WSL_SANDBOX"], f"one of auto, {', '.join(TRUE_WORDS + FALSE_WORDS)}")
    mode: SandboxMode = "auto" if value == "auto" else "on" if value in TRUE_WORDS else "off"
    check = _boolean(env, "WSLMCP_SANDBOX_CHECK", True)
    return SandboxSettings(mode, _boolean(env, "WSL_SANDBOX_NETWORK", True), hide, check)


def _allow_commands(env: Mapping[str, str]) -> tuple[str, ...] | None:
    value = _get(env, "WSL_ALLOW_COMMANDS")
    if value is None:
        return None
    names = _items(value)
    for name in names:
        if "/" in name or not _COMMAND_RE.fullmatch(name):
            raise ConfigError(
                f"WSL_ALLOW_COMMANDS entries must be bare command names such as ls or git; "
                f"{name!r} is not (got {value!r})"
            )
    if not names:
        return None
    if "pwd" not in names:
        names.append("pwd")
    return tuple(dict.fromkeys(names))


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    value = _get(env, name)
    if value is None:
        return default
    if value.lower() not in choices:
        raise _fail(name, value, f"one of {', '.join(choices)}")
    return value.lower()


def _log_level(env: Mapping[str, str]) -> LogLevel:
    value = _choice(env, "WSL_MCP_LOG_LEVEL", LOG_LEVELS, "info")
    return next(level for level in LOG_LEVELS if level == value)


def _transport(env: Mapping[str, str]) -> TransportChoice:
    value = _choice(env, "WSLMCP_SHELL_TRANSPORT", TRANSPORTS, "auto")
    return next(choice for choice in TRANSPORTS if choice == value)


def _matching(env: Mapping[str, str], name: str, pattern: re.Pattern[str], expected: str) -> str | None:
    value = _get(env, name)
    if value is not None and not pattern.fullmatch(value):
        raise _fail(name, value, expected)
    return value


def load_config(env: Mapping[str, str]) -> ShellConfig:
    """Parse the ``WSL_*`` variables. Raises ``ConfigError`` naming the first malformed one."""
    distro = _matching(
        env, "WSL_DISTRO", _DISTRO_RE, "a distro name as 'wsl -l -q' prints it (letters, digits, . _ -)"
    )
    user = _matching(env, "WSL_USER", _USER_RE, "a Linux user name")
    name = _get(env, "WSL_NAME")
    if name is not None and _CONTROL_RE.search(name):
        raise _fail("WSL_NAME", name, "one line of printable text")
    description = _get(env, "WSL_DESCRIPTION")
    cwd = _get(env, "WSL_CWD")
    if cwd is not None and (not cwd.startswith("/") or _CONTROL_RE.search(cwd)):
        raise _fail("WSL_CWD", cwd, "an absolute directory path in the distro")
    readonly = _boolean(env, "WSL_READONLY", False)
    allow_sudo = _boolean(env, "WSL_ALLOW_SUDO", True)
    allow_windows = _boolean(env, "WSL_ALLOW_WINDOWS", False)
    policy = Policy(
        readonly=readonly,
        allow_sudo=allow_sudo,
        allow_windows=allow_windows,
        allow_commands=_allow_commands(env),
        deny_patterns=_deny_patterns(env),
        allowed_paths=_allowed_paths(env),
        home=None,
        user=user,
    )
    audit_log, audit_required = _audit(env)
    return ShellConfig(
        distro=distro,
        user=user,
        name=name or distro or "wsl",
        description=description,
        cwd=cwd,
        policy=policy,
        exec_timeout_ms=_integer(env, "WSL_EXEC_TIMEOUT_MS", DEFAULT_EXEC_TIMEOUT_MS, MAX_EXEC_TIMEOUT_MS),
        max_output=_integer(env, "WSL_MAX_OUTPUT", DEFAULT_MAX_OUTPUT, MAX_OUTPUT_LIMIT),
        output_cap_bytes=_integer(
            env, "WSL_OUTPUT_CAP_BYTES", DEFAULT_OUTPUT_CAP_BYTES, MAX_OUTPUT_CAP_BYTES
        ),
        max_read_bytes=_integer(env, "WSL_MAX_READ_BYTES", DEFAULT_MAX_READ_BYTES, MAX_READ_LIMIT),
        max_processes=_integer(env, "WSL_MAX_PROCESSES", DEFAULT_MAX_PROCESSES, MAX_PROCESSES_LIMIT),
        process_output_bytes=_integer(
            env, "WSL_PROCESS_OUTPUT_BYTES", DEFAULT_PROCESS_OUTPUT_BYTES, MAX_PROCESS_OUTPUT_LIMIT
        ),
        process_max_ms=_integer(env, "WSL_PROCESS_MAX_MS", DEFAULT_PROCESS_MAX_MS, MAX_PROCESS_MS_LIMIT),
        log_level=_log_level(env),
        transport=_transport(env),
        audit_log=audit_log,
        audit_required=audit_required,
        sandbox=_sandbox(env),
        approvals=_approvals(env),
    )


def _approvals(env: Mapping[str, str]) -> ApprovalMode:
    value = _choice(env, "WSL_APPROVALS", APPROVAL_MODES, "ask")
    return next(mode for mode in APPROVAL_MODES if mode == value)


def _audit(env: Mapping[str, str]) -> tuple[str | None, bool]:
    """``WSL_AUDIT_LOG`` (an absolute path on this machine) and ``WSL_AUDIT_REQUIRED``."""
    path = _get(env, "WSL_AUDIT_LOG")
    if path is not None and (
        _CONTROL_RE.search(path) or not (path.startswith("/") or re.match(r"[A-Za-z]:[\\/]", path))
    ):
        raise _fail("WSL_AUDIT_LOG", path, "an absolute file path")
    required = _boolean(env, "WSL_AUDIT_REQUIRED", False)
    if required and path is None:
        raise ConfigError(
            "WSL_AUDIT_REQUIRED is true but WSL_AUDIT_LOG names no file to write the audit log to"
        )
    return path, required
