"""MCP servers replayed from recorded initialize/tools/list answers, and the recorder that makes them.

Fixture format (a JSON file; a scenario names it in its manifest as ``profile.mcp_answers``)::

    {"schema": "wslmcp-mcp-answers/1",
     "answers": [{"name": "srv", "server_name": "...", "server_version": "...",
                  "protocol_version": "...", "instructions": "..." | null,
                  "tools": [{...tool objects exactly as listed...}],
                  "error": null | "one-line reason", "detail": null | "...",
                  "duration_ms": 12}]}

Answers are keyed by server name; a name recorded several times is answered in recorded order,
then the last answer repeats. Launch material (command, args, env) is never recorded.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerAnswer, ServerSpec
from wslmcp.fakes.replay import ReplayMiss, closest_first
from wslmcp.scenario.exchanges import MCP_ANSWERS_SCHEMA, answers_to_json, read_answers
from wslmcp.scenario.fields import Fields, ScenarioError
from wslmcp.scenario.loader import Scenario

SCHEMA = MCP_ANSWERS_SCHEMA


def load_answers(path: Path) -> list[ServerAnswer]:
    """The answers of a fixture file; ``ScenarioError`` (a ``ValueError``) names the file and what is wrong."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ScenarioError(path, "", f"a file of valid JSON ({exc})") from None
    return read_answers(doc, Fields(path), "")


class FakeMcpLauncher:
    """Answers ``query`` from recorded answers.

    A recorded answer that took longer than the asked deadline is replayed as the timeout it would
    have been. A server name with no recording raises ``ReplayMiss``: never a silent default.
    """

    boundary = "mcp_launcher"

    def __init__(self, answers: list[ServerAnswer], scenario_name: str = "(answers)") -> None:
        self._answers = answers
        self._scenario = scenario_name
        self._served: dict[str, int] = {}
        self._lock = threading.Lock()
        self.calls: list[tuple[str, float]] = []

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> FakeMcpLauncher:
        rel = scenario.section("profile").get("mcp_answers")
        answers = load_answers(scenario.file(str(rel))) if rel is not None else []
        return cls(answers, scenario.name)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> FakeMcpLauncher:
        return cls(load_answers(Path(path)), str(path))

    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        with self._lock:  # the querying pool calls from several threads
            return self._serve(spec, timeout_s)

    def _serve(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        self.calls.append((spec.name, timeout_s))
        matches = [a for a in self._answers if a.name == spec.name]
        if not matches:
            offered = closest_first(spec.name, sorted({a.name for a in self._answers}))
            raise ReplayMiss(self.boundary, self._scenario, f"server {spec.name!r}", offered)
        n = self._served.get(spec.name, 0)
        self._served[spec.name] = n + 1
        answer = matches[min(n, len(matches) - 1)]
        if answer.error is None and answer.duration_s > timeout_s:
            return ServerAnswer(
                name=spec.name, error=f"timeout after {timeout_s:g} seconds", duration_s=timeout_s
            )
        return answer


def _escape_surrogates(text: str) -> str:
    """A lone UTF-16 surrogate (legal in a server's JSON, not encodable as UTF-8) as its JSON escape.

    ``ensure_ascii=False`` leaves such characters raw, and they can only stand inside JSON strings,
    where ``\\udXXX`` reads back as the same character.
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


class RecordingMcpLauncher:
    """Wraps a real launcher and writes every answer it gives into a fixture file (fake's format).

    Answers are written sorted by server name. The file is rewritten whole after each answer (a
    temporary file renamed over it), so a recording is never half-written. ``rewrite`` maps text to
    its stand-in in everything written (e.g. a temporary copy's home path -> ``/home/user``): a
    recording names the fixture home, not the machine it was made on.
    """

    def __init__(
        self, inner: McpLauncher, path: str | os.PathLike[str], rewrite: Mapping[str, str] | None = None
    ) -> None:
        self._inner = inner
        self._path = Path(path)
        self._rewrite = dict(rewrite or {})
        self._lock = threading.Lock()
        self.answers: list[ServerAnswer] = []

    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        answer = self._inner.query(spec, timeout_s)
        with self._lock:  # one rewrite of the file at a time
            self.answers.append(answer)
            self._write()
        return answer

    def save(self) -> None:
        """Write the fixture file now (a recording that launched nothing still has one)."""
        self._write()

    def _write(self) -> None:
        # Sorted by name (stable: one name's answers keep their order) so that re-recording a
        # concurrent run gives the same file.
        doc = answers_to_json(sorted(self.answers, key=lambda a: a.name))
        text = _escape_surrogates(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        for old, new in self._rewrite.items():
            text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
        self._path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self._path.parent, prefix=".answers-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, self._path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
