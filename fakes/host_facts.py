"""The host facts a scenario states (``observe.host``), served unchanged for the whole run."""

from __future__ import annotations

from wslmcp.boundaries.host_facts import HostFacts


class StatedHost:
    """A ``HostProbe`` that answers the scenario's stated facts: they do not change during a run."""

    def __init__(self, facts: HostFacts) -> None:
        self._facts = facts

    async def read(self) -> HostFacts | None:
        return self._facts
