"""The one stdio test client: a real server subprocess, JSON-RPC lines in, every stdout line kept.

No SDK client here on purpose: tests send what a real client never would, pick the protocol
revision they speak (``handshake(version)``; ``MODERN`` for the 2026 per-request envelope) and
check what comes back line by line (every stdout line must be a JSON-RPC response or notification).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"
MODERN = "2026-07-28"


def envelope(version: str = MODERN) -> dict[str, Any]:
    """The ``_meta`` a 2026-era request carries in place of a handshake."""
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "rig", "version": "0"},
    }


def init_frame(request_id: object = "init", version: str = PROTOCOL) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "rig", "version": "0"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _key(request_id: object) -> str:
    """An id as a dict key that keeps JSON types apart (1, 1.0, true and "1" differ)."""
    return json.dumps(request_id, ensure_ascii=True)


class Server:
    """One server process. ``lines`` holds every stdout line, parsed (``None`` for a non-JSON line)."""

    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
    ) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            cwd=cwd,
        )
        self.version = PROTOCOL
        self.raw: list[bytes] = []
        self.lines: list[Any] = []
        self.arrived: list[float] = []  # time.perf_counter() at each line
        self._by_id: dict[str, list[int]] = {}  # json.dumps(id) -> indexes of the answers to it
        self._cond = threading.Condition()
        self.stderr = b""
        threading.Thread(target=self._pump, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_reader.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                parsed: Any = json.loads(line)
            except ValueError:
                parsed = None
            with self._cond:
                self.arrived.append(time.perf_counter())
                self.raw.append(line)
                self.lines.append(parsed)
                if isinstance(parsed, dict) and "id" in parsed and "method" not in parsed:
                    self._by_id.setdefault(_key(parsed["id"]), []).append(len(self.lines) - 1)
                self._cond.notify_all()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send_line(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    @staticmethod
    def encode(frame: object) -> bytes:
        return json.dumps(frame, ensure_ascii=True).encode()

    def send(self, frame: object) -> None:
        self.send_line(self.encode(frame))

    def answers(self, request_id: object) -> list[dict[str, Any]]:
        with self._cond:
            return self.answers_unlocked(request_id)

    def wait_for(self, request_id: object, timeout: float = 20.0, count: int = 1) -> dict[str, Any]:
        """The ``count``-th answer to ``request_id`` (waiting for it)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = self.answers_unlocked(request_id)
                if len(found) >= count:
                    return found[count - 1]
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"no answer to id {request_id!r}; stderr: {self.stderr[-800:]!r}")
                self._cond.wait(min(left, 0.2))

    def arrival(self, request_id: object) -> float:
        """When the first answer to ``request_id`` arrived (perf_counter seconds)."""
        with self._cond:
            for m, at in zip(self.lines, self.arrived, strict=True):
                if isinstance(m, dict) and m.get("id") == request_id and "method" not in m:
                    return at
        raise KeyError(request_id)

    def answers_unlocked(self, request_id: object) -> list[dict[str, Any]]:
        return [
            m
            for m in self.lines
            if isinstance(m, dict)
            and "id" in m
            and m["id"] == request_id
            and type(m["id"]) is type(request_id)
        ]

    def handshake(self, version: str = PROTOCOL) -> dict[str, Any]:
        """Open the session at ``version`` (nothing to do for the 2026 revisions); the result."""
        self.version = version
        if version == MODERN:
            return {}
        self.send(init_frame(version=version))
        reply = self.wait_for("init")
        assert "result" in reply, reply
        self.send(INITIALIZED)
        result: dict[str, Any] = reply["result"]
        return result

    def request(
        self, request_id: object, method: str, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Send one request in the session's revision and wait for its answer."""
        body = dict(params or {})
        if self.version == MODERN:
            body["_meta"] = {**body.get("_meta", {}), **envelope()}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": body})
        return self.wait_for(request_id)

    def call(self, request_id: object, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """A ``tools/call``; the whole answer (``result`` or ``error``)."""
        return self.request(request_id, "tools/call", {"name": tool, "arguments": dict(arguments)})

    def ping(self, request_id: object) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        return self.wait_for(request_id)

    def id_counts(self) -> Counter[str]:
        """Answers per id (``json.dumps`` of the id)."""
        with self._cond:
            return Counter({key: len(found) for key, found in self._by_id.items()})

    def only_jsonrpc_on_stdout(self) -> list[bytes]:
        """The stdout lines that are not a JSON-RPC 2.0 response or notification (should be none)."""
        bad = []
        with self._cond:
            for raw, m in zip(self.raw, self.lines, strict=True):
                ok = (
                    isinstance(m, dict)
                    and m.get("jsonrpc") == "2.0"
                    and (
                        ("id" in m and (("result" in m) ^ ("error" in m)))
                        or ("method" in m and "id" not in m)
                    )
                )
                if not ok:
                    bad.append(raw)
        return bad

    def signal(self, sig: signal.Signals) -> None:
        self.proc.send_signal(sig)

    def close(self, timeout: float = 20.0) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        return self.wait(timeout)

    def wait(self, timeout: float = 20.0) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        self._stderr_reader.join(5)
        return code
