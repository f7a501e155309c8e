"""The recorded exchanges of a scenario: one typed record per format, read and written here only.

The manifest validates a scenario by reading every record (``read``: strict, each failure a
``ScenarioError`` naming the file and the key), the twins in ``fakes/`` replay the records, and the
recorders beside them write ``to_json()``; so the format, its defaults and its checks are written
once. A record read back from what ``to_json`` wrote is the same record.

``ProcessExchange`` (``exchanges.wsl_exe``, ``exchanges.wslc``): one run of a program::

    {"args": [...], "stdin_sha256": "..."?, "stdout": "exchanges/wsl_exe/000.stdout"?,
     "stdout_encoding": "bytes" | "utf-8" | "utf-16le"?, "stdout_total": N?, (the same for stderr),
     "exit_code": 0 | null, "duration_ms": 12, "timed_out": true?, "overflowed": true?,
     "looks": [[count, passed, ended], ...]?, "killed": ["pid comm", ...]?}

  ``killed`` names the processes a kill reached (the local transport names them: a run of it is
  recorded as a wsl.exe exchange, ``boundaries.local_exchanges``).

  ``looks`` marks a live call (a background process, read while it ran): see ``Look``.

  or ``{"args": [...], "absent": true}``: the program is not installed (wslc.exe).
``EngineExchange`` (``exchanges.docker_api``): one Docker Engine request, its answer or failure
  (the format is described in ``fakes/docker_api.py``).
``ServerAnswer`` (``profile.mcp_answers``, schema ``wslmcp-mcp-answers/1``): an MCP server's
  initialize/tools/list answer (``read_answers``, ``answer_to_json``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wslmcp.boundaries.mcp_launcher import ServerAnswer
from wslmcp.scenario.fields import Fields

#: How a recorded stream is encoded: a Linux command's raw ``bytes``, or wsl.exe's own messages.
ENCODINGS = ("bytes", "utf-16le", "utf-8")
#: How a recorded Docker Engine request failed (the DockerError the adapter raised), most specific first.
DOCKER_ERRORS = ("absent", "timeout", "bad_answer", "unavailable")
MCP_ANSWERS_SCHEMA = "wslmcp-mcp-answers/1"
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Stream:
    """A recorded output stream: the file holding its bytes (relative to the scenario), the encoding
    the recorder declared (None: not stated, read as ``bytes``) and, when the program wrote more than
    was captured, how many bytes it wrote."""

    file: str
    encoding: str | None = None
    total: int | None = None


@dataclass(frozen=True)
class Look:
    """A live call's read point (a background process read while it runs): by look number ``count``
    (from 1) its caller had been given ``passed`` stdout bytes, and had seen its end or not."""

    count: int
    passed: int
    ended: bool


@dataclass(frozen=True)
class ProcessExchange:
    """One run of a program: matched by ``args`` and the SHA-256 of its stdin, answered with its
    streams, exit code (None: killed at its deadline) and duration, as recorded."""

    args: tuple[str, ...]
    stdin_sha256: str | None = None
    stdout: Stream | None = None
    stderr: Stream | None = None
    exit_code: int | None = 0
    duration_ms: int = 0
    timed_out: bool = False
    overflowed: bool = False
    #: The program is not installed on the recorded host (``{"args": [...], "absent": true}``).
    absent: bool = False
    #: A live call's read points, in order (``"looks": [[count, passed, ended], ...]``): matched by
    #: ``args`` alone, its stdout handed over look by look.
    looks: tuple[Look, ...] | None = None
    #: ``"pid comm"`` of each process the kill at the deadline reached, when they were named.
    killed: tuple[str, ...] = ()

    @classmethod
    def read(cls, item: object, key: str, fields: Fields, root: Path) -> ProcessExchange:
        record = fields.obj(item, key)
        args = record.get("args")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise fields.fail(f"{key}.args", "a list of strings", args)
        digest = record.get("stdin_sha256")
        if digest is not None and not (isinstance(digest, str) and _SHA256.fullmatch(digest)):
            raise fields.fail(f"{key}.stdin_sha256", "64 lowercase hex digits", digest)
        exit_code = record.get("exit_code", 0)
        return cls(
            args=tuple(args),
            stdin_sha256=digest,
            stdout=_stream(record, "stdout", key, fields, root),
            stderr=_stream(record, "stderr", key, fields, root),
            exit_code=None if exit_code is None else fields.integer(exit_code, f"{key}.exit_code"),
            duration_ms=fields.integer(record.get("duration_ms", 0), f"{key}.duration_ms", minimum=0),
            timed_out=_flag(record, "timed_out", key, fields),
            overflowed=_flag(record, "overflowed", key, fields),
            absent=_flag(record, "absent", key, fields),
            looks=_looks(record, key, fields),
            killed=_killed(record, key, fields),
        )

    def to_json(self) -> dict[str, Any]:
        """The record as the recorder writes it (optional keys only when they say something)."""
        out: dict[str, Any] = {"args": list(self.args)}
        if self.absent:
            out["absent"] = True
            return out
        if self.stdin_sha256 is not None:
            out["stdin_sha256"] = self.stdin_sha256
        for name, stream in (("stdout", self.stdout), ("stderr", self.stderr)):
            if stream is None:
                continue
            out[name] = stream.file
            if stream.encoding is not None:
                out[f"{name}_encoding"] = stream.encoding
            if stream.total is not None:
                out[f"{name}_total"] = stream.total
        out["exit_code"] = self.exit_code
        out["duration_ms"] = self.duration_ms
        if self.timed_out:
            out["timed_out"] = True
        if self.overflowed:
            out["overflowed"] = True
        if self.looks is not None:
            out["looks"] = [[look.count, look.passed, look.ended] for look in self.looks]
        if self.killed:
            out["killed"] = list(self.killed)
        return out


def _killed(record: Mapping[str, Any], key: str, fields: Fields) -> tuple[str, ...]:
    killed = record.get("killed", [])
    if not isinstance(killed, list) or not all(isinstance(k, str) for k in killed):
        raise fields.fail(f"{key}.killed", 'a list of "pid comm" strings', killed)
    return tuple(killed)


def _looks(record: Mapping[str, Any], key: str, fields: Fields) -> tuple[Look, ...] | None:
    looks = record.get("looks")
    if looks is None:
        return None
    if not isinstance(looks, list):
        raise fields.fail(f"{key}.looks", "a list of [count, passed, ended]", looks)
    read = []
    for i, item in enumerate(looks):
        where = f"{key}.looks[{i}]"
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[2], bool)):
            raise fields.fail(where, "[count, passed, ended]", item)
        read.append(
            Look(
                fields.integer(item[0], where, minimum=0), fields.integer(item[1], where, minimum=0), item[2]
            )
        )
    return tuple(read)


def _stream(record: Mapping[str, Any], name: str, key: str, fields: Fields, root: Path) -> Stream | None:
    encoding = record.get(f"{name}_encoding")
    if encoding is not None and encoding not in ENCODINGS:
        raise fields.fail(f"{key}.{name}_encoding", f"one of {sorted(ENCODINGS)}", encoding)
    if name not in record:
        return None
    fields.rel_file(root, record[name], f"{key}.{name}")
    total = record.get(f"{name}_total")
    return Stream(
        record[name],
        encoding,
        None if total is None else fields.integer(total, f"{key}.{name}_total", minimum=0),
    )


def _flag(record: Mapping[str, Any], name: str, key: str, fields: Fields) -> bool:
    value = record.get(name, False)
    if not isinstance(value, bool):
        raise fields.fail(f"{key}.{name}", "true or false", value)
    return value


@dataclass(frozen=True)
class JsonBody:
    """A hand-written answer body given as a JSON value (sent compact, with a newline, as the Engine does)."""

    value: object


@dataclass(frozen=True)
class EngineExchange:
    """One Docker Engine request (unversioned ``path`` and its ``query``) and what came back: an HTTP
    answer (status, API version, headers and one body: a ``body`` file of the exact bytes, or
    hand-written ``json`` or ``text``), or the ``error`` the adapter raised (``DOCKER_ERRORS``)."""

    path: str
    query: Mapping[str, str] = field(default_factory=dict)
    status: int = 200
    api_version: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None
    json: JsonBody | None = None
    text: str | None = None
    duration_ms: int = 0
    error: str | None = None
    message: str | None = None

    @classmethod
    def read(cls, item: object, key: str, fields: Fields, root: Path) -> EngineExchange:
        record = fields.obj(item, key)
        path = fields.text(record.get("path"), f"{key}.path")
        if not path.startswith("/") or re.match(r"/v\d+\.\d+/", path):
            raise fields.fail(f"{key}.path", "an unversioned Engine API path such as /containers/json", path)
        query, headers = (_strings(record, name, key, fields) for name in ("query", "headers"))
        duration_ms = fields.integer(record.get("duration_ms", 0), f"{key}.duration_ms", minimum=0)
        if "error" in record:
            if record["error"] not in DOCKER_ERRORS:
                raise fields.fail(f"{key}.error", f"one of {list(DOCKER_ERRORS)}", record["error"])
            message = record.get("message")
            if message is not None:
                fields.text(message, f"{key}.message")
            return cls(path, query, duration_ms=duration_ms, error=record["error"], message=message)
        status = fields.integer(record.get("status", 200), f"{key}.status", minimum=100)
        if status > 599:
            raise fields.fail(f"{key}.status", "an HTTP status (100-599)", status)
        bodies = [b for b in ("body", "json", "text") if b in record]
        if len(bodies) > 1:
            raise fields.fail(key, "at most one of body (a file), json or text", bodies)
        if "body" in record:
            fields.rel_file(root, record["body"], f"{key}.body")
        if "text" in record:
            fields.text(record["text"], f"{key}.text", empty=True)
        version = record.get("api_version")
        if version is not None and not re.fullmatch(r"\d+\.\d+", fields.text(version, f"{key}.api_version")):
            raise fields.fail(f"{key}.api_version", 'an API version such as "1.41"', version)
        return cls(
            path,
            query,
            status,
            version,
            headers,
            body=record.get("body"),
            json=JsonBody(record["json"]) if "json" in record else None,
            text=record.get("text"),
            duration_ms=duration_ms,
        )

    def to_json(self) -> dict[str, Any]:
        """The record as the recorder writes it."""
        out: dict[str, Any] = {"path": self.path}
        if self.query:
            out["query"] = dict(self.query)
        if self.error is not None:
            out["error"] = self.error
            if self.message is not None:
                out["message"] = self.message
            out["duration_ms"] = self.duration_ms
            return out
        out.update(status=self.status, api_version=self.api_version, headers=dict(self.headers))
        if self.body is not None:
            out["body"] = self.body
        if self.json is not None:
            out["json"] = self.json.value
        if self.text is not None:
            out["text"] = self.text
        out["duration_ms"] = self.duration_ms
        return out


def _strings(record: Mapping[str, Any], name: str, key: str, fields: Fields) -> dict[str, str]:
    return {
        k: fields.text(v, f"{key}.{name}.{k}", empty=True)
        for k, v in fields.obj(record.get(name, {}), f"{key}.{name}").items()
    }


#: Which record each boundary's exchanges are.
KINDS: Mapping[str, type[ProcessExchange] | type[EngineExchange]] = {
    "wsl_exe": ProcessExchange,
    "wslc": ProcessExchange,
    "docker_api": EngineExchange,
}


def read_exchanges(value: object, fields: Fields, root: Path) -> None:
    """Validate a manifest's ``exchanges``: every boundary's list, every record."""
    for boundary, items in fields.obj(value, "exchanges").items():
        kind = KINDS.get(boundary)
        if kind is None:
            raise fields.fail(f"exchanges.{boundary}", f"a recorded boundary ({', '.join(sorted(KINDS))})")
        if not isinstance(items, list):
            raise fields.fail(f"exchanges.{boundary}", "a list of recorded exchanges", items)
        for i, item in enumerate(items):
            kind.read(item, f"exchanges.{boundary}[{i}]", fields, root)


def read_answers(doc: object, fields: Fields, key: str) -> list[ServerAnswer]:
    """A ``wslmcp-mcp-answers/1`` document's answers, in recorded order."""
    if not (
        isinstance(doc, dict)
        and doc.get("schema") == MCP_ANSWERS_SCHEMA
        and isinstance(doc.get("answers"), list)
    ):
        raise fields.fail(key, f'a "{MCP_ANSWERS_SCHEMA}" document with an answers list')
    return [_answer(item, fields, key, f"answers[{i}]") for i, item in enumerate(doc["answers"])]


def _answer(item: object, fields: Fields, key: str, label: str) -> ServerAnswer:
    tools = item.get("tools", []) if isinstance(item, dict) else None
    if (
        not isinstance(item, dict)
        or not isinstance(item.get("name"), str)
        or not isinstance(tools, list)
        or not all(isinstance(t, dict) for t in tools)
    ):
        raise fields.fail(key, f"{label} with a string 'name' and a list of tool objects 'tools'")

    def text(name: str) -> str | None:
        value = item.get(name)
        if value is not None and not isinstance(value, str):
            raise fields.fail(key, f"{label}.{name} a string or null", value)
        return value

    duration = item.get("duration_ms", 0)
    if isinstance(duration, bool) or not isinstance(duration, int | float) or duration < 0:
        raise fields.fail(key, f"{label}.duration_ms a number >= 0", duration)
    return ServerAnswer(
        name=item["name"],
        server_name=text("server_name"),
        server_version=text("server_version"),
        protocol_version=text("protocol_version"),
        instructions=text("instructions"),
        tools=tuple(tools),
        error=text("error"),
        detail=text("detail"),
        duration_s=float(duration) / 1000,
    )


def answer_to_json(answer: ServerAnswer) -> dict[str, Any]:
    return {
        "name": answer.name,
        "server_name": answer.server_name,
        "server_version": answer.server_version,
        "protocol_version": answer.protocol_version,
        "instructions": answer.instructions,
        "tools": [dict(t) for t in answer.tools],
        "error": answer.error,
        "detail": answer.detail,
        "duration_ms": round(answer.duration_s * 1000),
    }


def answers_to_json(answers: Sequence[ServerAnswer]) -> dict[str, Any]:
    """The answers file, answers in the order given."""
    return {"schema": MCP_ANSWERS_SCHEMA, "answers": [answer_to_json(a) for a in answers]}
