"""Reading config files through the ClientFiles boundary, with mcp-top's warning texts.

A missing file is silently absent; anything else that goes wrong is one warning, never an
exception. Error texts are Python's own (what mcp-top prints), never the file's content.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from wslmcp.boundaries.client_files import ClientFiles


@dataclass(frozen=True)
class Loaded:
    """``root`` is the parsed document (None when absent or unusable); ``exists`` = file present."""

    exists: bool
    root: dict[str, Any] | None
    warning: str | None = None


_ABSENT = Loaded(exists=False, root=None)


def note(loaded: Loaded, path: str, files_read: list[str], warnings: list[str]) -> dict[str, Any] | None:
    """Record a read file (when present) and its warning; the parsed root, if usable."""
    if loaded.exists:
        files_read.append(path)
    if loaded.warning:
        warnings.append(loaded.warning)
    return loaded.root


def _read(files: ClientFiles, path: str) -> bytes | Loaded:
    """The file's bytes, or what its absence or unreadability means."""
    try:
        return files.read_bytes(path)
    except FileNotFoundError:
        return _ABSENT
    except OSError as err:
        return Loaded(True, None, f"could not read {path}: {err}")


def _text(data: bytes) -> str:
    # Universal newlines, as a text-mode open() would give (error offsets depend on it).
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def read_json(
    files: ClientFiles,
    path: str,
    *,
    unicode_is: Literal["parse", "read"] = "parse",
    empty_warns: bool = False,
) -> Loaded:
    """A JSON object file. ``unicode_is`` picks the wording of a decoding failure (Claude Code
    says "could not parse", Cursor "could not read"); ``empty_warns`` is Cursor's empty-file rule.
    """
    data = _read(files, path)
    if isinstance(data, Loaded):
        return data
    try:
        text = _text(data)
    except UnicodeError as err:
        verb = "parse" if unicode_is == "parse" else "read"
        return Loaded(True, None, f"could not {verb} {path}: {err}")
    if empty_warns and not text.strip():
        return Loaded(True, None, f"{path}: exists but is empty -- no servers read")
    try:
        root = json.loads(text)
    except (ValueError, RecursionError) as err:
        return Loaded(True, None, f"could not parse {path}: {err}")
    if not isinstance(root, dict):
        return Loaded(True, None, f"{path}: config root is not an object")
    return Loaded(True, root)


def read_toml(files: ClientFiles, path: str) -> Loaded:
    import tomllib

    data = _read(files, path)
    if isinstance(data, Loaded):
        return data
    try:
        root = tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as err:
        return Loaded(True, None, f"could not parse {path}: {err}")
    except (UnicodeError, RecursionError) as err:
        return Loaded(True, None, f"could not read {path}: {err}")
    return Loaded(True, root)
