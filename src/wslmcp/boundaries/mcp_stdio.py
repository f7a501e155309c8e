"""The real stdio ``McpLauncher``: newline-delimited JSON-RPC over a server's stdin/stdout.

Three parts, one job each:

- ``process_group`` starts the server as the leader of its own process group and, at the end,
  kills the whole group (grandchildren too), waiting on the leader's pidfd;
- this module pumps stdout (bounded: an enormous tools/list cannot exhaust memory), splits it on
  ``b"\\n"`` only, and writes the requests, all under one deadline;
- ``mcp_exchange.ToolsListing`` (pure) decides what to send next and judges every reply, in
  mcp-top's words.

No MCP SDK is imported: the exchange is four message kinds, and a fresh ``wslmcp profile`` run
would otherwise spend most of its time importing the SDK's client.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

from wslmcp import __version__
from wslmcp.boundaries.mcp_exchange import (
    ToolsListing,
    encode,
    exceeded_reason,
    timeout_reason,
)
from wslmcp.boundaries.mcp_launcher import ServerAnswer, ServerSpec
from wslmcp.boundaries.process_group import Group, start_group

DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024
WINDOWS_UNSUPPORTED = "querying servers needs a POSIX host (run wslmcp profile inside WSL)"
_CHUNK = 65536


@dataclass
class _Stdout:
    """What the launcher saw on the server's stdout."""

    bytes_read: int = 0
    eof: bool = False
    #: The byte limit the output went past (reading stopped there); None while within it.
    exceeded: int | None = None


class StdioMcpLauncher:
    """Launch, ``initialize``, every ``tools/list`` page, then kill the process group.

    ``base_env`` is the environment a server inherits before its config ``env`` is laid over it
    (default: this process's environment, as mcp-top does). ``max_output`` bounds the bytes read
    from a server's stdout. ``grace_s`` is how long a server that answered gets to exit on SIGTERM
    before the group is SIGKILLed; at the deadline there is no grace.
    """

    def __init__(
        self,
        *,
        base_env: Mapping[str, str] | None = None,
        max_output: int = DEFAULT_MAX_OUTPUT,
        grace_s: float = 0.5,
    ) -> None:
        self._base_env = dict(os.environ if base_env is None else base_env)
        self._max_output = max_output
        self._grace_s = grace_s

    async def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        start = time.monotonic()
        if not hasattr(os, "killpg"):  # a process group is what makes the kill complete
            return ServerAnswer(name=spec.name, error=WINDOWS_UNSUPPORTED)
        if spec.cwd is not None and not os.path.isdir(spec.cwd):  # noqa: ASYNC240 - one stat
            return ServerAnswer(name=spec.name, error=f"cwd does not exist: {spec.cwd}")
        try:
            group = await start_group(
                [spec.command, *spec.args],
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                cwd=spec.cwd,
                env={**self._base_env, **spec.env},
            )
        except (OSError, ValueError) as err:  # mcp-top shows the OS error text; NUL in an argument
            return ServerAnswer(name=spec.name, error=str(err), duration_s=time.monotonic() - start)
        listing = ToolsListing(__version__)
        seen = _Stdout()
        try:
            async with asyncio.timeout(timeout_s):
                await _converse(group, listing, seen, self._max_output)
        except TimeoutError:
            listing.fail(timeout_reason(timeout_s))
        finally:
            # A server that answered gets a short SIGTERM grace, never past the deadline.
            grace = min(self._grace_s, max(0.0, start + timeout_s - time.monotonic()))
            await group.stop(polite=seen.exceeded is None and grace > 0, grace_s=grace)
        if listing.failure is None:
            answer = listing.answer(spec.name, listing.junk_detail())
        else:
            code = group.process.returncode if seen.eof else None
            answer = listing.answer(spec.name, listing.failure_detail(code))
        return replace(answer, duration_s=time.monotonic() - start)


async def _converse(group: Group, listing: ToolsListing, seen: _Stdout, max_output: int) -> None:
    """Send the opening request, then read stdout line by line until the listing is finished."""
    stdin, stdout = group.process.stdin, group.process.stdout
    assert stdin is not None and stdout is not None

    async def send(messages: list[dict[str, object]]) -> None:
        if not messages:
            return
        stdin.write(b"".join(encode(m) for m in messages))
        # A server that stopped reading: its stdout EOF (or the deadline) ends the query.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await stdin.drain()

    await send([listing.opening()])
    buffer = bytearray()
    while not listing.finished:
        chunk = await stdout.read(_CHUNK)
        if not chunk:  # EOF; a final line without a newline still counts
            seen.eof = True
            await send(listing.receive_line(bytes(buffer)))
            if not listing.finished:
                listing.fail(listing.closed_reason())
            return
        seen.bytes_read += len(chunk)
        if seen.bytes_read > max_output:
            seen.exceeded = max_output
            listing.fail(exceeded_reason(max_output))
            return
        buffer += chunk
        if b"\n" not in chunk:  # linear whatever the line lengths: split only on a newline
            continue
        *lines, rest = bytes(buffer).split(b"\n")
        buffer = bytearray(rest)
        for line in lines:
            await send(listing.receive_line(line))
            if listing.finished:
                return
