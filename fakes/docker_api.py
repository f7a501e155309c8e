"""The Docker Engine API replayed from a scenario's recorded answers.

A recorded answer (``exchanges.docker_api[i]`` of ``scenario.json``; written by
``wslmcp.fakes.docker_api.RecordingDockerApi``) is keyed by the unversioned ``path`` and its ``query``
(an object of strings, absent = none) and holds either an HTTP answer::

    {"path": "/containers/json", "query": {"all": "0"}, "status": 200, "api_version": "1.41",
     "headers": {"content-type": "application/json"}, "body": "docker/0001.body", "duration_ms": 3}

(``body`` a file of the exact bytes the Engine sent; hand-written scenarios may give ``json`` (any
JSON value, sent compact with a newline as the Engine does) or ``text`` instead), or a failure::

    {"path": "/containers/json", "error": "timeout", "message": "..."}

with ``error`` one of ``ERRORS`` (the ``DockerError`` the adapter raised). The same records drive
the Engine stand-in (``tests/standins/engine.py``), which produces each failure on the wire.
The endpoint the scenario was recorded against is ``host.docker_endpoint`` (``{"url", "source"}``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.docker_api import (
    ApiAnswer,
    DockerAbsent,
    DockerApi,
    DockerBadAnswer,
    DockerEndpoint,
    DockerError,
    DockerTimeout,
    DockerUnavailable,
)
from wslmcp.boundaries.docker_engine import decode_body
from wslmcp.fakes.replay import ReplayMiss, closest_first
from wslmcp.scenario.exchanges import DOCKER_ERRORS, EngineExchange
from wslmcp.scenario.fields import MANIFEST_NAME, Fields
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter

BOUNDARY: Final = "docker_api"
ERRORS: Final[Mapping[str, type[DockerError]]] = {
    "absent": DockerAbsent,
    "unavailable": DockerUnavailable,
    "timeout": DockerTimeout,
    "bad_answer": DockerBadAnswer,
}
ERROR_ORDER: Final = DOCKER_ERRORS  # most specific first
DEFAULT_ENDPOINT: Final = DockerEndpoint("unix:///var/run/docker.sock", "default")


def request_key(path: str, query: Mapping[str, str] | None) -> str:
    return path + ("?" + "&".join(f"{k}={v}" for k, v in sorted(query.items())) if query else "")


@dataclass(frozen=True)
class RecordedAnswer:
    """A recorded record (``scenario.exchanges.EngineExchange``) with what replaying it needs: the
    scenario directory its body file is in, and its place in the recording."""

    record: EngineExchange
    root: Path
    index: int

    @property
    def key(self) -> str:
        return request_key(self.record.path, self.record.query)

    @property
    def error(self) -> str | None:
        return self.record.error

    @property
    def status(self) -> int:
        return self.record.status

    @property
    def duration_s(self) -> float:
        return self.record.duration_ms / 1000.0

    def body_bytes(self) -> bytes:
        if self.record.body is not None:
            return Path(self.root, self.record.body).read_bytes()
        if self.record.json is not None:
            return json.dumps(self.record.json.value, separators=(",", ":")).encode() + b"\n"
        return (self.record.text or "").encode()

    def headers(self) -> dict[str, str]:
        headers = {k.lower(): v for k, v in self.record.headers.items()}
        if "content-type" not in headers:
            textual = self.record.text is not None
            headers["content-type"] = "text/plain; charset=utf-8" if textual else "application/json"
        return headers


class EngineRecording:
    """Recorded answers in recorded order per request; once used up, the last one repeats."""

    def __init__(self, name: str, root: Path, items: Sequence[object]) -> None:
        """``items``: the records in their JSON form, read (and checked) as a manifest reads them."""
        self.name = name
        fields = Fields(root / MANIFEST_NAME)
        self.answers = [
            RecordedAnswer(EngineExchange.read(item, f"exchanges.{BOUNDARY}[{i}]", fields, root), root, i)
            for i, item in enumerate(items)
        ]
        self._served: dict[str, int] = {}

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> EngineRecording:
        return cls(scenario.name, scenario.root, scenario.manifest.get("exchanges", {}).get(BOUNDARY, []))

    def next_answer(self, path: str, query: Mapping[str, str] | None) -> RecordedAnswer | None:
        key = request_key(path, query)
        matches = [a for a in self.answers if a.key == key]
        if not matches:
            return None
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        return matches[min(n, len(matches) - 1)]

    def miss(self, path: str, query: Mapping[str, str] | None) -> ReplayMiss:
        asked = f"GET {request_key(path, query)}"
        offered = sorted({f"GET {a.key}" for a in self.answers})
        return ReplayMiss(BOUNDARY, self.name, asked, closest_first(asked, offered))


class FakeDockerApi:
    """``DockerApi`` answering from a scenario; the recorded duration passes on ``clock`` (a
    duration past the caller's deadline is a ``DockerTimeout`` at the deadline)."""

    boundary = BOUNDARY

    def __init__(self, recording: EngineRecording, clock: Clock, endpoint: DockerEndpoint) -> None:
        self._recording = recording
        self._clock = clock
        self._endpoint = endpoint
        self.calls: list[str] = []

    @classmethod
    def from_scenario(cls, scenario: Scenario, clock: Clock) -> FakeDockerApi:
        spec = scenario.manifest.get("host", {}).get("docker_endpoint")
        endpoint = DockerEndpoint(spec["url"], spec.get("source", "recorded")) if spec else DEFAULT_ENDPOINT
        return cls(EngineRecording.from_scenario(scenario), clock, endpoint)

    @property
    def endpoint(self) -> DockerEndpoint:
        return self._endpoint

    async def get(self, path: str, query: Mapping[str, str] | None = None, *, timeout_s: float) -> ApiAnswer:
        self.calls.append(request_key(path, query))
        answer = self._recording.next_answer(path, query)
        if answer is None:
            raise self._recording.miss(path, query)
        if answer.duration_s > timeout_s or answer.error == "timeout":
            await self._clock.sleep(timeout_s)
            raise DockerTimeout(
                f"{self._endpoint.url}: no complete answer to GET {answer.key} within {timeout_s:g} s"
            )
        await self._clock.sleep(answer.duration_s)
        if answer.error is not None:
            raise ERRORS[answer.error](answer.record.message or answer.error)
        headers = answer.headers()
        return ApiAnswer(
            answer.status,
            decode_body(answer.body_bytes(), headers, answer.key),
            headers,
            answer.record.api_version,
        )


class RecordingDockerApi:
    """Record mode: passes every request to the real adapter and writes what came back into the
    scenario in the format above (bodies re-encoded as the compact JSON the Engine sends, text as
    is), plus the endpoint as ``host.docker_endpoint``."""

    def __init__(self, inner: DockerApi, writer: ScenarioWriter) -> None:
        self._inner = inner
        self._writer = writer
        self._count = 0
        endpoint = inner.endpoint
        writer.manifest["host"]["docker_endpoint"] = {"url": endpoint.url, "source": endpoint.source}

    @property
    def endpoint(self) -> DockerEndpoint:
        return self._inner.endpoint

    async def get(self, path: str, query: Mapping[str, str] | None = None, *, timeout_s: float) -> ApiAnswer:
        started = time.monotonic()

        def took() -> int:
            return round((time.monotonic() - started) * 1000)

        try:
            answer = await self._inner.get(path, query, timeout_s=timeout_s)
        except DockerError as exc:
            kind = next((k for k in ERROR_ORDER if isinstance(exc, ERRORS[k])), "unavailable")
            failed = EngineExchange(path, dict(query or {}), duration_ms=took(), error=kind, message=str(exc))
            self._writer.add_exchange(BOUNDARY, failed)
            raise
        rel = f"exchanges/{BOUNDARY}/{self._count:04d}.body"
        self._count += 1
        if isinstance(answer.body, str):
            data = answer.body.encode()
        else:
            data = json.dumps(answer.body, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        self._writer.add_file(rel, data)
        record = EngineExchange(
            path,
            dict(query or {}),
            answer.status,
            answer.api_version,
            {"content-type": answer.headers.get("content-type", "")},
            body=rel,
            duration_ms=took(),
        )
        self._writer.add_exchange(BOUNDARY, record)
        return answer
