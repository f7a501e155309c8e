"""Querying configured servers: the mcp-top §4.1 gate, then a bounded concurrent pool.

mcp-top asks servers one after another, so ten slow servers cost ten timeouts; here every
launchable server is queried at once, at most ``concurrency`` at a time (one thread each), each
under its own deadline (``startup_timeout_sec`` when configured, else ``timeout_s``). The launcher is the
``McpLauncher`` boundary; this module only decides who is launched and shapes the answers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerAnswer, ServerSpec
from wslmcp.profile.model import ConfiguredServer, DefStatus, QueryResult, ServerKey

#: ``progress(done, total, server_name)``, called after each launched server finishes.
Progress = Callable[[int, int, str], None]

DEFAULT_CONCURRENCY = 8

NOT_QUERIED_RESERVED = "reserved Claude Code server name -- Claude Code skips it at load time"
NOT_QUERIED_PROJECT = "project scope not queried by default; pass --query-project in trusted repos"
NOT_QUERIED_DISABLED = "disabled in config -- not queried"
NOT_QUERIED_NO_QUERY = "skipped by --no-query"
NOT_QUERIED_TRANSPORT = "unsupported transport (this version queries stdio only)"
NO_COMMAND = "stdio server has no command"
NO_URL = "http server has no url"


@dataclass
class PoolStats:
    """What the pool observed: how many queries ran at once, and in which order they started."""

    max_in_flight: int = 0
    started: list[ServerKey] = field(default_factory=list)
    _in_flight: int = 0

    def enter(self, key: ServerKey) -> None:
        self._in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self._in_flight)
        self.started.append(key)

    def leave(self) -> None:
        self._in_flight -= 1


def plan(
    server: ConfiguredServer, *, no_query: bool, query_project: bool, query_http: bool = False
) -> QueryResult | None:
    """The gate, first match wins: a finished result for a server that is not launched, else None.

    ``query_http`` (ours, off by default: a project's config is untrusted input) also lets
    streamable-HTTP servers through. (The last rule, "cwd does not exist", needs the filesystem:
    the launcher applies it.)
    """

    def skip(reason: str, status: DefStatus = "unsupported") -> QueryResult:
        return QueryResult(cli=server.cli, server=server.name, status=status, error=reason)

    if server.reserved:
        return skip(NOT_QUERIED_RESERVED)
    if server.scope == "project" and not query_project:
        return skip(NOT_QUERIED_PROJECT)
    if not server.enabled:
        return skip(NOT_QUERIED_DISABLED)
    if no_query:
        return skip(NOT_QUERIED_NO_QUERY)
    if server.transport == "http" and query_http:
        return None if server.url is not None else skip(NO_URL, "error")
    if server.transport != "stdio":
        return skip(NOT_QUERIED_TRANSPORT)
    if server.command is None:
        return skip(NO_COMMAND, "error")
    return None


def launch_spec(server: ConfiguredServer) -> ServerSpec:
    if server.transport == "http" and server.url is not None:
        return ServerSpec(name=server.name, command="", url=server.url, headers=dict(server.headers))
    if server.command is None:
        raise ValueError(f"server {server.name!r} has no command")
    return ServerSpec(
        name=server.name,
        command=server.command,
        args=tuple(server.args),
        env=dict(server.env),
        cwd=server.cwd,
    )


@dataclass(frozen=True)
class FilteredTools:
    kept: tuple[Mapping[str, Any], ...]
    filtered: int
    unmatched_enabled: tuple[str, ...]


def apply_tool_filters(server: ConfiguredServer, tools: Sequence[Mapping[str, Any]]) -> FilteredTools:
    """enabled_tools, then disabled_tools, over every returned tool object (mcp-top §4.2)."""
    objects = [t for t in tools if isinstance(t, Mapping)]
    returned = {str(t["name"]) for t in objects if isinstance(t.get("name"), str)}
    unmatched: tuple[str, ...] = ()
    if server.enabled_tools:
        unmatched = tuple(sorted(set(server.enabled_tools) - returned))
    kept = objects
    if server.enabled_tools is not None:
        allowed = set(server.enabled_tools)
        kept = [t for t in kept if isinstance(t.get("name"), str) and t["name"] in allowed]
    if server.disabled_tools:
        denied = set(server.disabled_tools)
        kept = [t for t in kept if not (isinstance(t.get("name"), str) and t["name"] in denied)]
    return FilteredTools(kept=tuple(kept), filtered=len(objects) - len(kept), unmatched_enabled=unmatched)


def shape(server: ConfiguredServer, answer: ServerAnswer, timeout_s: float) -> QueryResult:
    """A launcher answer as the profiler's QueryResult."""
    if answer.error is not None:
        return QueryResult(
            cli=server.cli,
            server=server.name,
            status="error",
            error=answer.error,
            duration_s=answer.duration_s,
            timeout_s=timeout_s,
            detail=answer.detail,
        )
    filtered = apply_tool_filters(server, answer.tools)
    return QueryResult(
        cli=server.cli,
        server=server.name,
        status="ok",
        server_name=answer.server_name,
        server_version=answer.server_version,
        protocol_version=answer.protocol_version,
        instructions=answer.instructions,
        tools=filtered.kept,
        returned_tools=len([t for t in answer.tools if isinstance(t, Mapping)]),
        filtered_tools=filtered.filtered,
        unmatched_enabled_tools=filtered.unmatched_enabled,
        duration_s=answer.duration_s,
        timeout_s=timeout_s,
        detail=answer.detail,
    )


def query_all(
    launcher: McpLauncher,
    servers: Iterable[ConfiguredServer],
    timeout_s: float,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    *,
    no_query: bool = False,
    query_project: bool = False,
    query_http: bool = False,
    stats: PoolStats | None = None,
) -> dict[ServerKey, QueryResult]:
    """One QueryResult per server, in the order given; launchable ones queried concurrently.

    ``concurrency`` worker threads take the servers in order, each blocking on one query at a
    time. The first exception a query raises (a replayed scenario's ``ReplayMiss``) is raised here
    once every worker has stopped; an interrupt lets no further query start, and each running one
    still ends (and kills its server) at its own deadline.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if not timeout_s > 0:
        raise ValueError("timeout_s must be greater than 0")
    listed = list(servers)
    results: dict[ServerKey, QueryResult | None] = {}
    launch: list[ConfiguredServer] = []
    for server in listed:
        gated = plan(server, no_query=no_query, query_project=query_project, query_http=query_http)
        results[server.key] = gated
        if gated is None:
            launch.append(server)

    seen = stats if stats is not None else PoolStats()
    lock = threading.Lock()
    todo = list(reversed(launch))
    failures: list[BaseException] = []
    done = 0

    def worker() -> None:
        nonlocal done
        while True:
            with lock:
                if not todo or failures:
                    return
                server = todo.pop()
                seen.enter(server.key)
            deadline = server.startup_timeout_s or timeout_s
            try:
                answer = launcher.query(launch_spec(server), deadline)
            except BaseException as err:
                with lock:
                    seen.leave()
                    failures.append(err)
                return
            with lock:
                seen.leave()
                results[server.key] = shape(server, answer, deadline)
                done += 1
                if progress is not None:
                    progress(done, len(launch), server.name)

    workers = [
        threading.Thread(target=worker, name="wslmcp-query") for _ in range(min(concurrency, len(launch)))
    ]
    for thread in workers:
        thread.start()
    try:
        for thread in workers:
            thread.join()
    except BaseException:
        with lock:
            todo.clear()
        raise
    if failures:
        raise failures[0]
    return {key: result for key, result in results.items() if result is not None}


def stderr_progress(stream: TextIO) -> Progress:
    """A single self-overwriting progress line; cleared when the last server finishes.

    Use it only when ``stream`` is a terminal (the CLI decides).
    """
    width = 0

    def show(done: int, total: int, name: str) -> None:
        nonlocal width
        safe = "".join(c if c.isprintable() and c.isascii() else "?" for c in name)[:40]
        line = f"wslmcp profile: queried {done}/{total} server(s) (last: {safe})"
        if done >= total:
            stream.write("\r" + " " * max(width, len(line)) + "\r")
        else:
            stream.write("\r" + line.ljust(width))
            width = max(width, len(line))
        stream.flush()

    return show
