"""A child that leads its own process group: signal the whole group, see it gone (POSIX).

The one process-group implementation, shared by ``process.run_process`` (asyncio) and the MCP
launcher (``mcp_stdio``, a thread per query). Both start the child leading a process group of its
own (``run_process`` in a session of its own only under a controlling terminal), so the group holds
everything it spawns, and wrap its pid in a ``Group``:

- ``Group.kill()`` SIGKILLs the group; ``kill_named()`` first stops
  the group (twice, for a child forked while the first stop was delivered), names its members
  ("pid comm"), then kills them.
- ``Group.stop(polite=, grace_s=)`` ends it for good: SIGTERM and up to ``grace_s`` for the
  leader to exit when ``polite``, then SIGKILL; on return the leader is reaped and no member of
  the group is alive (zombies count as dead), unless one survives SIGKILL for two seconds.
- The leader's exit is awaited on its pidfd where the kernel offers one (opened at start, while
  the pid surely is this child's), else by polling.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from collections.abc import Callable

_POLL_S = 0.01
KILL_WAIT_S = 2.0


def group_members(pgid: int, proc_root: str = "/proc") -> list[tuple[int, str]]:
    """(pid, comm) of every live process (neither zombie nor dead) in process group ``pgid``, read
    from /proc; empty where there is no /proc."""
    try:
        entries = os.listdir(proc_root)
    except OSError:
        return []
    members = []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc_root}/{entry}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        close = raw.rfind(b")")
        fields = raw[close + 2 :].split()
        if len(fields) < 3 or fields[0] in (b"Z", b"X") or not fields[2].isdigit() or int(fields[2]) != pgid:
            continue
        members.append((int(entry), raw[raw.find(b"(") + 1 : close].decode("utf-8", "replace")))
    return sorted(members)


class Group:
    """The process group a started child leads (started with ``start_new_session`` or ``process_group=0``).

    ``exited`` tells whether the leader has exited, reaping it where the caller owns the reaping
    (``Popen.poll``); under asyncio its child watcher reaps and ``exited`` reads ``returncode``.
    """

    def __init__(
        self, pid: int, exited: Callable[[], bool], kill_leader: Callable[[], None] | None = None
    ) -> None:
        self.pid = pid
        self._exited = exited
        self._kill_leader = kill_leader  # where there are no process groups (Windows)
        self._exit_fd = _open_exit_fd(pid)

    def signal(self, sig: signal.Signals) -> None:
        """``sig`` to the whole group; quiet when it is already gone."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    def kill(self) -> None:
        if os.name != "posix":
            if self._kill_leader is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    self._kill_leader()
            return
        self.signal(signal.SIGKILL)

    def kill_named(self) -> tuple[str, ...]:
        """Stop the group, name its members ("pid comm"), then kill them all."""
        if os.name != "posix":
            self.kill()
            return ()
        for _ in range(2):
            self.signal(signal.SIGSTOP)
        members = group_members(self.pid)
        self.kill()
        return tuple(f"{pid} {comm}" for pid, comm in members)

    def wait_leader(self, limit_s: float) -> bool:
        """Wait at most ``limit_s`` for the leader's exit (not for its pipes: a straggler may hold
        them), woken by its pidfd where there is one, else by polling; whether it exited."""
        deadline = time.monotonic() + limit_s
        while not self._exited():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if self._exit_fd is not None:
                select.select([self._exit_fd], [], [], left)
            else:
                time.sleep(min(_POLL_S, left))
        return True

    def wait_gone(self, limit_s: float) -> None:
        """SIGKILL is asynchronous: make sure the group (grandchildren too) is really gone.

        Usually the group no longer exists at all (one ``killpg(pgid, 0)``); only when something of
        it is still there (a zombie not yet reaped counts) is /proc read to tell the living from
        the dead.
        """
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            try:
                os.killpg(self.pid, 0)
            except ProcessLookupError:
                return
            except PermissionError:  # a member we cannot signal: only /proc can tell
                pass
            if os.path.isdir("/proc") and not group_members(self.pid):
                return
            self.kill()
            time.sleep(_POLL_S)

    def stop(self, *, polite: bool, grace_s: float) -> None:
        """SIGTERM and up to ``grace_s`` for the leader if ``polite``; then SIGKILL the whole group,
        reap the leader and wait until no member is alive."""
        try:
            if polite and not self._exited():
                self.signal(signal.SIGTERM)
                self.wait_leader(grace_s)
            self.kill()
            self.wait_leader(KILL_WAIT_S)
            self.wait_gone(KILL_WAIT_S)
        except BaseException:  # interrupted while waiting: the group still dies
            self.kill()
            raise
        finally:
            self.close()

    def close(self) -> None:
        """Release the pidfd (idempotent)."""
        if self._exit_fd is not None:
            fd, self._exit_fd = self._exit_fd, None
            os.close(fd)


def _open_exit_fd(pid: int) -> int | None:
    """A pidfd for the leader (readable once it has exited), where the kernel offers one. Opened
    at once, while the pid surely is this child's (alive, or exited and not yet reaped)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux >= 5.3: poll instead
        return None
