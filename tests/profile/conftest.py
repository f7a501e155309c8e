"""Helpers for the profiler engine tests: fixture homes written into tmp_path."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Lines = list[dict[str, Any] | str]


def write_jsonl(path: Path, lines: Lines) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def jsonl(tmp_path: Path) -> Callable[[str, Lines], Path]:
    def make(rel: str, lines: Lines) -> Path:
        return write_jsonl(tmp_path / rel, lines)

    return make
