"""Project identity keys: how a transcript is attributed to the project ``--project`` names.

Claude Code stores a lossy slug of the project path as the transcript's directory name; Codex records
the session's working directory. Neither key is ever printed.
"""

from __future__ import annotations

import posixpath
import re

_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def normalize_project_key(path: str, *, windows: bool = False) -> str:
    key = posixpath.normpath(path.replace("\\", "/") if windows else path).replace("\\", "/").rstrip("/")
    return key.casefold() if windows else key


def claude_slug(path: str) -> str:
    """Every code point outside ASCII letters and digits becomes ``-``; nothing collapses."""
    return _NOT_ALNUM.sub("-", path)


def absolute(path: str, cwd: str) -> str:
    return posixpath.normpath(path if path.startswith("/") else posixpath.join(cwd, path))


def claude_project_key(project: str, cwd: str) -> str:
    return claude_slug(absolute(project, cwd))


def codex_project_key(project: str, cwd: str) -> str:
    return normalize_project_key(absolute(project, cwd))
