"""Loader for tests/guard/corpus.txt (format described at the top of that file)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from wslmcp.shell.guard import Policy

CORPUS = Path(__file__).with_name("corpus.txt")
DEFAULT_POLICY: dict[str, object] = {"allow_sudo": True, "home": "/home/me", "user": "me"}


@dataclass(frozen=True)
class Case:
    id: str
    section: str
    check: str
    access: str | None
    verdict: str
    rule: str | None
    text: str
    policy: Policy
    cwd: str | None = None
    policy_line: str = field(default="")


def _policy(spec: str) -> tuple[Policy, str | None]:
    values: dict[str, object] = dict(DEFAULT_POLICY)
    deny: list[re.Pattern[str]] = []
    cwd: str | None = None
    for item in spec.split():
        key, _, value = item.partition("=")
        if key in ("readonly", "allow_sudo", "allow_windows"):
            values[key] = value.lower() == "true"
        elif key in ("allow_commands", "allowed_paths"):
            values[key] = tuple(v for v in value.split(",") if v)
        elif key == "deny":
            deny.append(re.compile(value, re.IGNORECASE))
        elif key == "home":
            values[key] = value if value != "-" else None
        elif key == "cwd":
            cwd = value
        else:
            raise ValueError(f"unknown policy key {key!r}")
    values["deny_patterns"] = tuple(deny)
    return Policy(**values), cwd  # type: ignore[arg-type]


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40]


def load(path: Path = CORPUS) -> list[Case]:
    cases: list[Case] = []
    section = "start"
    check, access = "command", None
    policy, cwd = _policy("")
    policy_line = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or (line.startswith("#") and not line.startswith("## ")):
            continue
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        if line.startswith("@policy"):
            policy_line = line[len("@policy") :].strip()
            policy, cwd = _policy(policy_line)
            continue
        if line.startswith("@check"):
            words = line.split()[1:]
            check, access = words[0], (words[1] if len(words) > 1 else None)
            continue
        head, sep, text = line.partition(" | ")
        if not sep:
            raise ValueError(f"{path}:{number}: expected '<verdict> [rule] | <text>'")
        parts = head.split()
        verdict, rule = parts[0], (parts[1] if len(parts) > 1 else None)
        if verdict not in ("allow", "reject"):
            raise ValueError(f"{path}:{number}: verdict must be allow or reject")
        if text.startswith("json:"):
            text = json.loads(text[5:])
        cases.append(
            Case(
                f"{_slug(section)}-{number}",
                section,
                check,
                access,
                verdict,
                rule,
                text,
                policy,
                cwd,
                policy_line,
            )
        )
    return cases
