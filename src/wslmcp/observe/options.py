"""``wslmcp observe`` startup options. Only these are accepted; anything else is a usage error.

Hand-written on purpose, not on ``wslmcp.cliargs`` (argparse): the errors are the same one line
(``cliargs.usage_line``, exit status 2), but what they say is pinned (tests/observe/test_options.py)
and argparse cannot say it: it accepts a repeated flag silently, reports ``--interval-ms`` without
a value as "expected one argument", ``--wsl-only=yes`` as "ignored explicit argument", gathers
unknown words into one "unrecognized arguments" line after converting the known ones (so
``extra --interval-ms 99`` would blame the interval, not ``extra``) and refuses a value that starts
with ``-``. ``--help`` anywhere prints the help.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MIN_INTERVAL_MS, MAX_INTERVAL_MS, DEFAULT_INTERVAL_MS = 100, 60000, 3000
MIN_HISTORY_INTERVAL_MS, MAX_HISTORY_INTERVAL_MS, DEFAULT_HISTORY_INTERVAL_MS = 500, 60000, 5000
MAX_HISTORY_MINUTES, DEFAULT_HISTORY_MINUTES = 1440, 60
# option -> (field, unit, least, most)
_NUMBERS = {
    "--interval-ms": ("interval_ms", "milliseconds", MIN_INTERVAL_MS, MAX_INTERVAL_MS),
    "--history-interval-ms": (
        "history_interval_ms",
        "milliseconds",
        MIN_HISTORY_INTERVAL_MS,
        MAX_HISTORY_INTERVAL_MS,
    ),
    "--history-minutes": ("history_minutes", "minutes", 0, MAX_HISTORY_MINUTES),
}

HELP = """usage: wslmcp observe [--interval-ms N] [--wsl-only] [--no-docker] [--no-wslc] [--distro NAME]
                      [--history-interval-ms N] [--history-minutes N] [--replay SCENARIO_DIR]

A read-only MCP server over stdio: observations of the host, WSL, containers and processes.
No process control, no shell, no network listener. Once serving, stdout carries only MCP
JSON-RPC; diagnostics go to stderr; closing stdin stops the server.

options:
  --interval-ms N        sampling interval inside a collection, 100..60000 ms (default 3000)
  --wsl-only             observe WSL only; CPU percentages use the WSL-visible CPU count
                         (cpu_scope "wsl_visible")
  --no-docker            do not collect Docker containers
  --no-wslc              do not collect WSL containers (WSLC)
  --distro NAME          primary WSL distribution (Windows only; default: WSL's default)
  --history-interval-ms N
                         history sampling interval, 500..60000 ms (default 5000)
  --history-minutes N    history kept from the server's start, 0..1440 minutes (default 60;
                         0 turns history off)
  --replay SCENARIO_DIR  serve a recorded scenario instead of this machine
  -h, --help             show this help message and exit

tools: get_system_summary, list_resources, inspect_resource, list_children, get_history,
get_metric_series.
Snapshots: 4 kept, 60-second retention from collection completion; latest reads accept a
snapshot up to max_age_ms old (default 3000, 0 forces a collection). Resource IDs are opaque and
observation-scoped: use them only with the snapshot_id they came from. History: a sample every
--history-interval-ms from the server's start, kept for --history-minutes in bounded memory.
"""


class UsageError(ValueError):
    pass


@dataclass(frozen=True)
class Options:
    interval_ms: int = DEFAULT_INTERVAL_MS
    wsl_only: bool = False
    docker: bool = True
    wslc: bool = True
    distro: str | None = None
    replay: str | None = None
    help: bool = False
    history_interval_ms: int = DEFAULT_HISTORY_INTERVAL_MS
    history_minutes: int = DEFAULT_HISTORY_MINUTES


def parse_options(argv: Sequence[str], stated: Sequence[str] = ()) -> Options:
    """``argv`` as options; ``stated`` (a scenario's ``observe.args``) fills what ``argv`` leaves out."""
    args = list(argv)
    if "--help" in args or "-h" in args:
        return Options(help=True)
    return Options(**{**_given(stated), **_given(args)})  # type: ignore[arg-type]


def _given(args: Sequence[str]) -> dict[str, object]:
    """The options ``args`` names explicitly, by field."""
    values: dict[str, object] = {}
    flags = {"--wsl-only": "wsl_only", "--no-docker": "docker", "--no-wslc": "wslc"}
    i = 0
    while i < len(args):
        raw = args[i]
        name, eq, inline = raw.partition("=")
        if name in flags and not eq:
            key = flags[name]
            value: object = name == "--wsl-only"
        elif name in ("--distro", "--replay", *_NUMBERS):
            if eq:
                text = inline
            elif i + 1 < len(args):
                i += 1
                text = args[i]
            else:
                raise UsageError(f"{name} requires a value")
            key = _NUMBERS[name][0] if name in _NUMBERS else name[2:].replace("-", "_")
            value = _value(name, text)
        else:
            raise UsageError(f"unrecognized arguments: {raw}")
        if key in values:
            raise UsageError(f"{name} given more than once")
        values[key] = value
        i += 1
    return values


def _value(name: str, text: str) -> object:
    if name in _NUMBERS:
        _, unit, least, most = _NUMBERS[name]
        if not text.isascii() or not text.isdigit():
            raise UsageError(f"{name} must be a whole number of {unit}, got {text!r}")
        value = int(text)
        if value < least:
            raise UsageError(f"{name} must be at least {least}")
        if value > most:
            raise UsageError(f"{name} must be at most {most}")
        return value
    if not text.strip():
        raise UsageError(f"{name} must not be empty")
    return text.strip() if name == "--distro" else text
