"""The real stdio ``McpLauncher``: newline-delimited JSON-RPC over a server's stdin/stdout.

Three parts, one job each:

- the server starts in a new session, so it leads a process group; ``process_group`` at the end
  kills the whole group (grandchildren too), waiting on the leader's pidfd;
- this module reads stdout (bounded: an enormous tools/list cannot exhaust memory), splits it on
  ``b"\\n"`` only, and writes the requests, all under one deadline, blocking its thread;
- ``mcp_exchange.ToolsListing`` (pure) decides what to send next and judges every reply, in
  mcp-top's words.

Neither the MCP SDK nor asyncio is imported: the exchange is four message kinds, and a fresh
``wslmcp profile`` run would otherwise spend most of its time importing them (mcp-top is
stdlib-only and thread-based; so is this).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import IO

from wslmcp import __version__
from wslmcp.boundaries.mcp_exchange import (
    ToolsListing,
    encode,
    exceeded_reason,
    timeout_reason,
)
from wslmcp.boundaries.mcp_launcher import ServerAnswer, ServerSpec
from wslmcp.boundaries.process_group import Group

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
    before the group is SIGKILLed; at the deadline there is no grace. ``query`` blocks its caller
    (the querying pool runs one per thread); concurrent calls share nothing.
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

    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        start = time.monotonic()
        deadline = start + timeout_s
        if not hasattr(os, "killpg"):  # a process group is what makes the kill complete
            return ServerAnswer(name=spec.name, error=WINDOWS_UNSUPPORTED)
        if spec.cwd is not None and not os.path.isdir(spec.cwd):
            return ServerAnswer(name=spec.name, error=f"cwd does not exist: {spec.cwd}")
        try:
            proc = subprocess.Popen(
                [spec.command, *spec.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=spec.cwd,
                env={**self._base_env, **spec.env},
                start_new_session=True,
            )
        except (OSError, ValueError) as err:  # mcp-top shows the OS error text; NUL in an argument
            return ServerAnswer(name=spec.name, error=str(err), duration_s=time.monotonic() - start)
        group = Group(proc.pid, lambda: proc.poll() is not None)
        listing = ToolsListing(__version__)
        seen = _Stdout()
        try:
            _converse(proc, listing, seen, self._max_output, deadline)
            if not listing.finished:
                listing.fail(timeout_reason(timeout_s))
        finally:
            _close(proc.stdin)
            # A server that answered gets a short SIGTERM grace, never past the deadline.
            grace = min(self._grace_s, max(0.0, deadline - time.monotonic()))
            group.stop(polite=seen.exceeded is None and grace > 0, grace_s=grace)
            _close(proc.stdout)
        if listing.failure is None:
            answer = listing.answer(spec.name, listing.junk_detail())
        else:
            answer = listing.answer(spec.name, listing.failure_detail(proc.returncode if seen.eof else None))
        return replace(answer, duration_s=time.monotonic() - start)


def _close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        with contextlib.suppress(OSError):
            stream.close()


def _converse(
    proc: subprocess.Popen[bytes], listing: ToolsListing, seen: _Stdout, max_output: int, deadline: float
) -> None:
    """Send the opening request, then read stdout line by line until the listing is finished or
    the deadline passes (the listing is then left unfinished)."""
    stdin, stdout = proc.stdin, proc.stdout
    assert stdin is not None and stdout is not None

    def send(messages: list[dict[str, object]]) -> None:
        if messages:
            # A server that stopped reading: its stdout EOF (or the deadline) ends the query.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError, ValueError):
                stdin.write(b"".join(encode(m) for m in messages))
                stdin.flush()

    send([listing.opening()])
    fd = stdout.fileno()
    buffer = bytearray()
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while not listing.finished:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return
            chunk = os.read(fd, _CHUNK)
            if not chunk:  # EOF; a final line without a newline still counts
                seen.eof = True
                send(listing.receive_line(bytes(buffer)))
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
                send(listing.receive_line(line))
                if listing.finished:
                    return
