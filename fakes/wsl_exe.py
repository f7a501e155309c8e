"""wsl.exe replayed from a scenario's recorded exchanges."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from typing import Any

from fakes.replay import ReplayMiss, closest_first
from wslmcp.boundaries.process import FEED_BYTES, Exchange, Stdin
from wslmcp.boundaries.wsl_exe import WslCall
from wslmcp.scenario.loader import Scenario


def stdin_digest(stdin: Stdin) -> str | None:
    """SHA-256 of what stdin carries; a ``ByteSource`` is read to its end, a piece at a time."""
    if stdin is None:
        return None
    if isinstance(stdin, bytes):
        return hashlib.sha256(stdin).hexdigest()
    digest = hashlib.sha256()
    while piece := stdin.read(FEED_BYTES):
        digest.update(piece)
    return digest.hexdigest()


class FakeWslExe:
    """Answers a request whose args and stdin digest match a recorded exchange.

    Identical requests recorded several times are answered in recorded order; once they are used
    up the last answer repeats (a host query asked again). Anything else is a ``ReplayMiss``.
    Streamed stdin (a ``ByteSource``) is read to its end to be hashed; ``stdout_sink`` receives the
    recorded stdout. Totals past the recorded capture (``stdout_total``/``stderr_total``), the
    deadline (``timed_out``) and the output cap (``overflowed``) are replayed as recorded.
    (``scenarios/*/exchanges`` are written by ``wslmcp.scenario.recorder.RecordingWslExe``.)
    """

    boundary = "wsl_exe"

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario
        self._items: list[Mapping[str, Any]] = list(
            scenario.manifest.get("exchanges", {}).get(self.boundary, [])
        )
        self._served: dict[tuple[tuple[str, ...], str | None], int] = {}
        self.calls: list[tuple[str, ...]] = []

    async def run(self, call: WslCall) -> Exchange:
        await asyncio.sleep(0)
        args, max_output = call.args, call.max_output
        self.calls.append(tuple(args))
        digest = stdin_digest(call.stdin)
        matches = [
            i
            for i, item in enumerate(self._items)
            if item["args"] == list(args) and item.get("stdin_sha256") == digest
        ]
        if not matches:
            asked = f"wsl.exe {' '.join(args)[:200]}"
            offered = [f"wsl.exe {' '.join(item['args'])[:120]}" for item in self._items]
            raise ReplayMiss(self.boundary, self._scenario.name, asked, closest_first(asked, offered))
        key = (tuple(args), digest)
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        item = self._items[matches[min(n, len(matches) - 1)]]
        out = self._bytes(item, "stdout")
        err = self._bytes(item, "stderr")
        timed_out = bool(item.get("timed_out", False))
        kept = out[:max_output]
        if call.stdout_sink is not None:
            call.stdout_sink(kept)
            kept = b""
        return Exchange(
            argv=("wsl.exe", *args),
            stdout=kept,
            stderr=err[:max_output],
            exit_code=None if timed_out else item.get("exit_code", 0),
            duration_s=int(item.get("duration_ms", 0)) / 1000.0,
            timed_out=timed_out,
            stdout_total=max(len(out), int(item.get("stdout_total", 0))),
            stderr_total=max(len(err), int(item.get("stderr_total", 0))),
            overflowed=bool(item.get("overflowed", False)),
        )

    def _bytes(self, item: Mapping[str, Any], stream: str) -> bytes:
        return self._scenario.file(item[stream]).read_bytes() if stream in item else b""
