"""Strict reading of a scenario's JSON: every failure is one ``ScenarioError`` naming the file, the
key and what was expected. The manifest (``manifest.py``) and the recorded exchange records
(``exchanges.py``) read their fields through ``Fields``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MANIFEST_NAME = "scenario.json"


class ScenarioError(ValueError):
    """A scenario that cannot be used, with where and why."""

    def __init__(self, file: Path | str, key: str, expected: str, got: object = None) -> None:
        self.file, self.key, self.expected = str(file), key, expected
        got_text = "" if got is None else f", got {_show(got)}"
        super().__init__(f"{file}: {key or '(top level)'}: expected {expected}{got_text}")


class NotADirectory(ScenarioError):
    """A scenario path that is no directory: ``no such directory`` or ``not a directory``."""

    def __init__(self, path: Path) -> None:
        said = "not a directory" if path.exists() else "no such directory"
        ValueError.__init__(self, f"{path}: {said}")
        self.file, self.key, self.expected = str(path), "", "a directory"


def _show(value: object) -> str:
    text = json.dumps(value) if isinstance(value, str | int | float | bool | list | dict) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def inside(root: Path, rel: str) -> Path | None:
    """``root/rel`` resolved, or None when ``rel`` is absolute or leads out of ``root``."""
    path = (root / rel).resolve()
    if Path(rel).is_absolute() or not path.is_relative_to(root.resolve()):
        return None
    return path


class Fields:
    """The checks of one file's values; each returns the value it accepted."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def fail(self, key: str, expected: str, got: object = None) -> ScenarioError:
        return ScenarioError(self.file, key, expected, got)

    def obj(self, value: object, key: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, "an object", value)
        return value

    def text(self, value: object, key: str, *, empty: bool = False) -> str:
        if not isinstance(value, str) or (not empty and not value):
            raise self.fail(key, "a non-empty string", value)
        return value

    def integer(self, value: object, key: str, *, minimum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
            raise self.fail(key, f"an integer >= {minimum}" if minimum is not None else "an integer", value)
        return value

    def number(self, value: object, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, "a number", value)
        return float(value)

    def rel_file(self, root: Path, value: object, key: str, *, directory: bool = False) -> Path:
        rel = self.text(value, key)
        path = inside(root, rel)
        if path is None:
            raise self.fail(key, "a path inside the scenario directory", rel)
        if directory and not path.is_dir():
            raise self.fail(key, "an existing directory", rel)
        if not directory and not path.is_file():
            raise self.fail(key, "an existing file", rel)
        return path
