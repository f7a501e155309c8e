"""The running distros' homes a scenario states (``profile.distro_homes``)."""

from __future__ import annotations

from collections.abc import Sequence


class StatedDistroHomes:
    """A ``DistroHomes`` that answers the stated paths."""

    def __init__(self, homes: Sequence[str] = ()) -> None:
        self._homes = list(homes)

    def find(self) -> list[str]:
        return list(self._homes)
