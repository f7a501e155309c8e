"""The Windows home a scenario states (``profile.windows_home``), or none."""

from __future__ import annotations


class StatedWindowsHome:
    """A ``WindowsHome`` that answers the stated path (None: the scenario's host has no Windows side)."""

    def __init__(self, path: str | None) -> None:
        self._path = path

    def find(self) -> str | None:
        return self._path
