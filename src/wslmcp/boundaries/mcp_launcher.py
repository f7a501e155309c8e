"""The MCP servers the profiler queries, as a boundary.

Contract
--------
``query(spec, timeout_s) -> ServerAnswer``
    Launches one configured stdio server (``command``, ``args``, ``env``, ``cwd``), or POSTs to a
    streamable-HTTP one (``url``, with only the ``headers`` its config holds), runs
    ``initialize`` and every page of ``tools/list``, and returns what the server advertised: its
    name and version, its instructions, and the tools exactly as listed (JSON objects). Everything
    is bounded by ``timeout_s`` in total; afterwards the server's whole process group is gone.
    A server that cannot be started, prints junk, crashes, exits or misses the deadline yields an
    answer with ``error`` set to a one-line reason and no tools: a failed query is data.
Errors
    none: every failure is reported in the answer.

Real adapters: ``wslmcp.boundaries.mcp_stdio.StdioMcpLauncher`` (JSON-RPC over the server's
stdio; the server leads a process group that ``process_group`` kills) and
``wslmcp.boundaries.mcp_http.HttpMcpLauncher`` for a ``url`` (http.client, the deadline bounding
every socket wait; no credentials but the spec's headers, and neither headers nor the URL in any
error text); both judged by the pure ``mcp_exchange``. ``query`` blocks its caller (the querying
pool runs one per thread). Fake: ``wslmcp.fakes.mcp_launcher.FakeMcpLauncher``, recorded
initialize/tools/list answers keyed by server name; ``RecordingMcpLauncher`` records them.

Error texts follow mcp-top 0.5.0: ``timeout after {t:g} seconds``, ``server closed stdout before
response id {N}`` (initialize is id 1, tools/list pages 2, 3, ...), ``{initialize|tools/list} failed
(code {N})`` or ``... failed (no code)`` (an error whose code is not an integer),
``tools/list response has no result object``, ``tools/list response has no tools list``,
``tools/list nextCursor is not a string``, the OS error text of a failed launch,
``cwd does not exist: {cwd}``; plus ours: ``server output exceeded {N} bytes``, and over HTTP
``{initialize|tools/list} failed (HTTP {status})``, ``server closed the stream before response id
{N}``, ``unsupported URL scheme (...)``. A server's own
error message is never shown.

Tools are the tools/list entries that are JSON objects, in order, whatever else they hold or lack
(a tool without a name is kept; a number or string entry is dropped), as mcp-top reads them. An
initialize result that is not an object leaves name, version, protocol and instructions unset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ServerSpec:
    """A stdio server (``command``, ``args``, ``env``, ``cwd``) or, with ``url`` set, a
    streamable-HTTP one (``headers``: what the config itself sends; never in ``repr``)."""

    name: str
    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class ServerAnswer:
    name: str
    server_name: str | None = None
    server_version: str | None = None
    protocol_version: str | None = None
    instructions: str | None = None
    tools: Sequence[Mapping[str, Any]] = ()
    error: str | None = None
    duration_s: float = 0.0
    #: Extra diagnostics beside ``error`` (e.g. how many stdout lines were not JSON-RPC, the exit
    #: code); ``error`` itself keeps mcp-top's wording.
    detail: str | None = None


class McpLauncher(Protocol):
    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer: ...
