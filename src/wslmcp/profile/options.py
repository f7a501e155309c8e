"""What a ``wslmcp profile`` command line asks for, as one typed value (``cli.parse_options``
makes it; ``assembly.build`` and ``cli.execute`` read it)."""

from __future__ import annotations

from dataclasses import dataclass

from wslmcp.profile.gates import Budget


@dataclass(frozen=True)
class Options:
    #: None: a report; "snapshot" or "diff"
    command: str | None = None
    home: str | None = None
    project: str | None = None
    sessions: int = 30
    days: int = 30
    timeout: float = 20.0
    cli: str = "all"
    no_query: bool = False
    query_project: bool = False
    query_http: bool = False
    also_home: tuple[str, ...] = ()
    no_other_side: bool = False
    json: bool = False
    project_usage: bool = False
    prune: bool = False
    concurrency: int = 8
    replay: str | None = None
    tokens: bool = False
    fail_over: tuple[Budget, ...] = ()
    fail_on: tuple[str, ...] = ()
    #: snapshot: where to write it (None: stdout), and whether names are pseudonymized
    out: str | None = None
    redact_identifiers: bool = False
    #: diff: the two snapshot files, and the growth gate
    old: str = ""
    new: str = ""
    fail_on_growth: float | None = None

    @property
    def wire_tokens(self) -> bool:
        """Whether wire tokens are counted: JSON reports carry them, the human one with ``--tokens``;
        a budget compares them (also on a snapshot, which never prints them)."""
        if self.fail_over:
            return True
        return self.command != "snapshot" and (self.json or self.tokens)
