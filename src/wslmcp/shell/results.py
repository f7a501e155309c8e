"""What each shell operation found, as values: ``ShellService`` returns them, ``replies`` renders
them as the tools' reply texts. Nothing here formats text."""

from __future__ import annotations

from dataclasses import dataclass

from wslmcp.shell.config import ShellConfig
from wslmcp.shell.edits import Edit, Mismatch
from wslmcp.shell.errors import Refused
from wslmcp.shell.execution import ExecOutcome
from wslmcp.shell.files import Listing, ReadResult, Transfer
from wslmcp.shell.processes import Ending, View
from wslmcp.shell.ring import Read
from wslmcp.shell.sandbox import SandboxView
from wslmcp.shell.search import Match
from wslmcp.shell.status import DistroState, Facts


@dataclass(frozen=True)
class Refusal:
    """The guard refused the request; nothing ran."""

    refused: Refused


@dataclass(frozen=True)
class Failed:
    """``tool`` could not do what was asked, for ``reason``."""

    tool: str
    reason: str


@dataclass(frozen=True)
class Ran:
    """A wsl_exec command ran (to its end, its deadline or the output's safety cap)."""

    outcome: ExecOutcome
    timeout_ms: int
    max_chars: int
    cap: int
    transport_kind: str
    cwd: str | None  # the session's directory after the command (sessions only)
    cwd_note: str | None  # why the session kept its directory, when it did
    capped_from_ms: int | None = None  # the timeoutMs asked for, when above WSL_EXEC_TIMEOUT_MS
    sandbox: SandboxView | None = None  # the sandbox the command ran in (None: it is off)
    sandbox_note: str | None = None  # the "[sandbox]" line when the command failed on it
    unsandboxed: bool = False  # it ran outside the sandbox, as a person approved


@dataclass(frozen=True)
class Opened:
    session: str
    endpoint: str
    cwd: str | None
    readonly: bool


@dataclass(frozen=True)
class Closed:
    session: str


@dataclass(frozen=True)
class SessionRow:
    session: str
    cwd: str | None
    commands: int
    idle_s: int
    left_s: int
    opened_wall: float
    busy: bool


@dataclass(frozen=True)
class Sessions:
    rows: tuple[SessionRow, ...]
    limit: int
    endpoint: str


@dataclass(frozen=True)
class Listed:
    path: str  # as given
    listing: Listing


@dataclass(frozen=True)
class FileRead:
    path: str  # as given
    result: ReadResult
    limit: int


@dataclass(frozen=True)
class Wrote:
    path: str  # as given
    resolved: str
    size: int
    append: bool


@dataclass(frozen=True)
class Edited:
    """wsl_edit_file applied every edit (``counts``: the replacements of each) or, with
    ``dry_run``, would have; ``diff`` is cut after ``MAX_DIFF_LINES`` (``left_out`` more)."""

    path: str  # as given
    resolved: str
    counts: tuple[int, ...]
    diff: str
    left_out: int
    dry_run: bool
    size_before: int
    size_after: int


@dataclass(frozen=True)
class EditMismatch:
    """An edit matched another number of times than expected: nothing was changed."""

    path: str
    mismatch: Mismatch
    edit: Edit
    edits: int


@dataclass(frozen=True)
class Searched:
    """wsl_search: one page of matches (from ``offset``), where the next page starts (None: this is
    the last), how many were found, and why the search was cut short (None: it ran to its end)."""

    root: str  # as given (or defaulted)
    resolved: str
    matches: tuple[Match, ...]
    offset: int
    next_offset: int | None
    found: int
    cut: str | None
    files: tuple[str, ...] | None = None  # a search by name (no pattern): the page of files found
    glob: str | None = None

    @property
    def truncated(self) -> bool:
        return self.next_offset is not None or self.cut is not None


@dataclass(frozen=True)
class Transferred:
    direction: str  # "upload" or "download"
    transfer: Transfer


@dataclass(frozen=True)
class ProcessOutput:
    """wsl_start, wsl_read_output, wsl_send_input: the process as it stood, and output read from it.
    ``sent``: bytes written to its stdin (wsl_send_input); ``more``: unread bytes after this read."""

    tool: str
    process: View
    read: Read
    more: int
    sent: int | None = None
    closed_stdin: bool = False


@dataclass(frozen=True)
class Stopped:
    """wsl_stop: the process as it ended, and what the sweeps did."""

    process: View
    ending: Ending


@dataclass(frozen=True)
class Processes:
    """wsl_list_processes: every process kept, the ids shown for the last time, the limit."""

    rows: tuple[View, ...]
    last: tuple[str, ...]
    limit: int


@dataclass(frozen=True)
class NotSetUp:
    """wsl_list_hosts on a server with no distro registered (``plain_linux``: and no WSL here)."""

    plain_linux: bool = False


@dataclass(frozen=True)
class Hosts:
    config: ShellConfig
    endpoint: str
    transport_kind: str
    state: DistroState
    facts: Facts | None
    plain_linux: bool = False  # the local transport on a machine without WSL
    sandbox: str | None = (
        None  # the sandbox's line (unless WSL_SANDBOX=off): its profile, or why it is off or cannot run
    )


@dataclass(frozen=True)
class Checked:
    """``wslmcp shell --check``: how far the probe got. ``failure``: the transport's own failure
    (before the probe ran when ``probed`` is off); ``refused``: the guard refused ``id``."""

    config: ShellConfig
    endpoint: str
    transport_kind: str
    plain_linux: bool = False  # no WSL here: an unconfigured server says any label works
    state: DistroState | None = None
    failure: str | None = None
    refused: Refused | None = None
    probed: bool = False
    exit_code: int | None = None
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    duration_ms: int = 0
    facts: Facts | None = None
    sandbox: str | None = None  # the sandbox's line after its probe (unless WSL_SANDBOX=off)

    @property
    def sandbox_failed(self) -> bool:
        return self.sandbox is not None and self.sandbox.startswith("sandbox: REQUIRED BUT NOT RUNNING")


@dataclass(frozen=True)
class Noted:
    """``result`` with what the sandbox said about the call: what its after-command check undid,
    and (once a session) that it is off. One ``[sandbox] …`` line each."""

    result: Result
    notes: tuple[str, ...]


Result = (
    Noted
    | Refusal
    | Failed
    | Ran
    | Opened
    | Closed
    | Sessions
    | Listed
    | FileRead
    | Wrote
    | Edited
    | EditMismatch
    | Searched
    | Transferred
    | ProcessOutput
    | Stopped
    | Processes
    | NotSetUp
    | Hosts
)
