"""What one client (Claude Code, Codex, Cursor) contributes to a profile: the backend contract.

Every difference between clients lives behind this one shape, so the engine loops over the
backends of the detected clients and never names one (as psutil picks one platform module):

``cli``                   the client's name in reports (``model.Cli``).
``detect(files, home, project) -> bool``        whether its files are present (mcp-top §2).
``discover(files, home, project) -> CliDiscovery``  its configured servers and config warnings.
``scan(files, home, configured) -> Scan | None``   every transcript, parsed, with its session key;
                          None when the client keeps no transcripts we can read.
``read(records, configured, messages=False) -> Reading | None``  the client's one transcript
                          reader (``transcripts/events.py``): calls, results and messages, read
                          by the profiler's scan and by ``wslmcp eval`` alike; None: no transcripts.
``project_key(project, cwd) -> str | None``     the key its transcripts name ``--project`` by.
``loading(files, home, project, managed) -> Loading``  what decides whether definitions load
                          upfront: its warnings, and the regime of each server (``files`` None:
                          read no settings, as the pure join in tests does).
``visible_name(server, tool) -> str``           the tool name the model sees.
``text_limit``            bytes of a description or instructions the client keeps (None: all).
``wire``                  the provider wire form it sends (``wire_tokens.WIRES``): the one its
                          human column and budgets count.
``usage_note``            the coverage note when usage cannot be measured (None otherwise).
``recipe(removal) -> dict``  how to carry out a ``--prune`` removal (a command or guidance).

All file access goes through ``ClientFiles``; nothing here launches, and nothing raises on what it
reads (a bad file is a warning).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.model import Cli, CliDiscovery, ConfiguredServer
from wslmcp.profile.regimes import Regime

if TYPE_CHECKING:
    from wslmcp.profile.prune import Removal
    from wslmcp.profile.transcripts.events import Reading
    from wslmcp.profile.transcripts.model import Transcript


@dataclass
class Scan:
    """Transcripts of one client: every file found, in sorted order, with its session key."""

    transcripts: list[Transcript] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Loading:
    """A client's loading regimes: the warnings reading its settings gave, and each server's regime."""

    regime: Callable[[ConfiguredServer], Regime]
    warnings: tuple[str, ...] = ()


class Backend(Protocol):
    @property
    def cli(self) -> Cli: ...

    @property
    def text_limit(self) -> int | None: ...

    @property
    def usage_note(self) -> str | None: ...

    @property
    def wire(self) -> str: ...

    def detect(self, files: ClientFiles, home: str, project: str) -> bool: ...

    def discover(self, files: ClientFiles, home: str, project: str) -> CliDiscovery: ...

    def scan(self, files: ClientFiles, home: str, configured: Sequence[str]) -> Scan | None: ...

    def read(
        self, records: Iterable[dict[str, Any]], configured: Sequence[str], *, messages: bool = False
    ) -> Reading | None: ...

    def project_key(self, project: str, cwd: str) -> str | None: ...

    def loading(self, files: ClientFiles | None, home: str, project: str, managed: str) -> Loading: ...

    def visible_name(self, server: str, tool: str) -> str: ...

    def recipe(self, removal: Removal) -> dict[str, Any]: ...


def guidance(removal: Removal, change: str) -> dict[str, Any]:
    """A recipe that says what to edit by hand."""
    return {"kind": "guidance", "source_path": removal.source_path, "scope": removal.scope, "change": change}


def where(removal: Removal) -> str:
    return f"{removal.source_path} ({removal.scope} scope)"
