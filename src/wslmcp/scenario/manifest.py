"""The scenario manifest (``scenario.json``), schema ``wslmcp-scenario`` version 1.

Validation is strict and names the file, the key and what was expected; an unknown major version
is refused; an unknown minor version of major 1 is read (minors only add optional keys).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MANIFEST_NAME = "scenario.json"
SCHEMA_NAME = "wslmcp-scenario"
SCHEMA_VERSION = "1.0"
SCHEMA = f"{SCHEMA_NAME}/{SCHEMA_VERSION}"

# Top-level keys. Area sections (observe, shell, profile, eval) are objects their owners validate.
KNOWN_KEYS = {
    "schema", "name", "description", "source", "recorded_at", "recorder", "host", "clock",
    "timeline", "hold_last_ms", "exchanges", "home", "local_files", "expect", "observe", "shell", "profile", "eval",
}  # fmt: skip
ENCODINGS = {"utf-8", "utf-16le", "bytes"}
# Timeline keys whose value names one JSON sample file (``{"file": rel}``): PDH counters, Windows tables.
SAMPLE_FILE_KEYS = ("pdh", "windows")
# How a recorded Docker Engine request failed (the DockerError the adapter raised).
DOCKER_ERRORS = ("absent", "timeout", "bad_answer", "unavailable")


MCP_ANSWERS_SCHEMA = "wslmcp-mcp-answers/1"  # the launcher twin's fixture (fakes.mcp_launcher)


class ScenarioError(ValueError):
    """A scenario that cannot be used, with where and why."""

    def __init__(self, file: Path | str, key: str, expected: str, got: object = None) -> None:
        self.file, self.key, self.expected = str(file), key, expected
        got_text = "" if got is None else f", got {_show(got)}"
        super().__init__(f"{file}: {key or '(top level)'}: expected {expected}{got_text}")


def _show(value: object) -> str:
    text = json.dumps(value) if isinstance(value, str | int | float | bool | list | dict) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def inside(root: Path, rel: str) -> Path | None:
    """``root/rel`` resolved, or None when ``rel`` is absolute or leads out of ``root``."""
    path = (root / rel).resolve()
    if Path(rel).is_absolute() or not path.is_relative_to(root.resolve()):
        return None
    return path


class _Check:
    def __init__(self, file: Path) -> None:
        self.file = file

    def fail(self, key: str, expected: str, got: object = None) -> ScenarioError:
        return ScenarioError(self.file, key, expected, got)

    def obj(self, value: object, key: str) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, "an object", value)
        return value

    def text(self, value: object, key: str, *, empty: bool = False) -> str:
        if not isinstance(value, str) or (not empty and not value):
            raise self.fail(key, "a non-empty string", value)
        return value

    def integer(self, value: object, key: str, *, minimum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
            raise self.fail(key, f"an integer >= {minimum}" if minimum is not None else "an integer", value)
        return value

    def number(self, value: object, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, "a number", value)
        return float(value)

    def rel_file(self, root: Path, value: object, key: str, *, directory: bool = False) -> Path:
        rel = self.text(value, key)
        path = inside(root, rel)
        if path is None:
            raise self.fail(key, "a path inside the scenario directory", rel)
        if directory and not path.is_dir():
            raise self.fail(key, "an existing directory", rel)
        if not directory and not path.is_file():
            raise self.fail(key, "an existing file", rel)
        return path


def parse_schema(file: Path, value: object) -> tuple[int, int]:
    if not isinstance(value, str) or not re.fullmatch(rf"{SCHEMA_NAME}/\d+\.\d+", value):
        raise ScenarioError(file, "schema", f'"{SCHEMA_NAME}/<major>.<minor>" as the first key', value)
    major, minor = (int(p) for p in value.split("/", 1)[1].split("."))
    if major != 1:
        raise ScenarioError(file, "schema", f"major version 1 (this wslmcp reads {SCHEMA})", value)
    return major, minor


def read_manifest(root: Path) -> dict[str, Any]:
    """Read and validate ``root/scenario.json``; returns the manifest as a plain dict."""
    file = root / MANIFEST_NAME
    try:
        raw = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(file, "", "a scenario manifest file") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ScenarioError(file, f"line {exc.lineno}", f"valid JSON ({exc.msg})") from None
    check = _Check(file)
    manifest = dict(check.obj(data, ""))
    if not manifest or next(iter(manifest)) != "schema":
        raise check.fail("schema", 'the first key to be "schema"', next(iter(manifest), None))
    parse_schema(file, manifest["schema"])
    unknown = sorted(set(manifest) - KNOWN_KEYS)
    if unknown:
        raise check.fail(unknown[0], f"one of the known keys ({', '.join(sorted(KNOWN_KEYS))})")
    check.text(manifest.get("name"), "name")
    check.text(manifest.get("description", ""), "description", empty=True)
    if manifest.get("source", "hand-written") not in ("recorded", "hand-written"):
        raise check.fail("source", '"recorded" or "hand-written"', manifest.get("source"))
    for key in ("host", "clock", "observe", "shell", "profile", "eval"):
        if key in manifest:
            check.obj(manifest[key], key)
    if "clock" in manifest and "start_wall" in manifest["clock"]:
        check.number(manifest["clock"]["start_wall"], "clock.start_wall")
    _check_timeline(check, root, manifest)
    _check_exchanges(check, root, manifest.get("exchanges", {}))
    if "host" in manifest and "docker_endpoint" in manifest["host"]:
        endpoint = check.obj(manifest["host"]["docker_endpoint"], "host.docker_endpoint")
        check.text(endpoint.get("url"), "host.docker_endpoint.url")
        check.text(endpoint.get("source", "recorded"), "host.docker_endpoint.source")
    if "home" in manifest:
        _check_home(check, root, manifest["home"])
    if "local_files" in manifest:
        _check_local_files(check, root, manifest["local_files"])
    if "shell" in manifest:
        _check_shell(check, root, manifest["shell"])
    if "profile" in manifest:
        _check_profile(check, root, manifest["profile"])
    expect = manifest.get("expect", [])
    if not isinstance(expect, list):
        raise check.fail("expect", "a list of checks", expect)
    for i, item in enumerate(expect):
        check.text(check.obj(item, f"expect[{i}]").get("kind"), f"expect[{i}].kind")
    return manifest


def _check_timeline(check: _Check, root: Path, manifest: Mapping[str, Any]) -> None:
    timeline = manifest.get("timeline", [])
    if not isinstance(timeline, list):
        raise check.fail("timeline", "a list of samples ordered by t_ms", timeline)
    previous = -1
    for i, raw_entry in enumerate(timeline):
        key = f"timeline[{i}]"
        entry = check.obj(raw_entry, key)
        t_ms = check.integer(entry.get("t_ms"), f"{key}.t_ms", minimum=0)
        if t_ms <= previous:
            raise check.fail(
                f"{key}.t_ms", f"an integer greater than {previous} (samples in time order)", t_ms
            )
        previous = t_ms
        if "procfs" in entry:
            proc = check.obj(entry["procfs"], f"{key}.procfs")
            check.rel_file(root, proc.get("dir"), f"{key}.procfs.dir", directory=True)
            check.integer(proc.get("clk_tck"), f"{key}.procfs.clk_tck", minimum=1)
            check.integer(proc.get("page_size"), f"{key}.procfs.page_size", minimum=1)
            if "sha256" in proc and not re.fullmatch(r"[0-9a-f]{64}", str(proc["sha256"])):
                raise check.fail(f"{key}.procfs.sha256", "64 lowercase hex digits", proc["sha256"])
        for name in SAMPLE_FILE_KEYS:
            if name in entry:
                spec = check.obj(entry[name], f"{key}.{name}")
                check.rel_file(root, spec.get("file"), f"{key}.{name}.file")
    check.integer(manifest.get("hold_last_ms", 0), "hold_last_ms", minimum=0)


def _check_exchanges(check: _Check, root: Path, exchanges: object) -> None:
    for boundary, items in check.obj(exchanges, "exchanges").items():
        if not isinstance(items, list):
            raise check.fail(f"exchanges.{boundary}", "a list of recorded exchanges", items)
        for i, raw_item in enumerate(items):
            key = f"exchanges.{boundary}[{i}]"
            item = check.obj(raw_item, key)
            if boundary == "docker_api":
                _check_engine_answer(check, root, key, item)
                continue
            args = item.get("args")
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise check.fail(f"{key}.args", "a list of strings", args)
            for stream in ("stdout", "stderr"):
                if stream in item:
                    check.rel_file(root, item[stream], f"{key}.{stream}")
                encoding = item.get(f"{stream}_encoding", "bytes")
                if encoding not in ENCODINGS:
                    raise check.fail(f"{key}.{stream}_encoding", f"one of {sorted(ENCODINGS)}", encoding)
            if item.get("exit_code") is not None:
                check.integer(item["exit_code"], f"{key}.exit_code")
            check.integer(item.get("duration_ms", 0), f"{key}.duration_ms", minimum=0)


def _check_engine_answer(check: _Check, root: Path, key: str, item: Mapping[str, Any]) -> None:
    path = check.text(item.get("path"), f"{key}.path")
    if not path.startswith("/") or re.match(r"/v\d+\.\d+/", path):
        raise check.fail(f"{key}.path", "an unversioned Engine API path such as /containers/json", path)
    for name in ("query", "headers"):
        for k, v in check.obj(item.get(name, {}), f"{key}.{name}").items():
            check.text(v, f"{key}.{name}.{k}", empty=True)
    check.integer(item.get("duration_ms", 0), f"{key}.duration_ms", minimum=0)
    if "error" in item:
        if item["error"] not in DOCKER_ERRORS:
            raise check.fail(f"{key}.error", f"one of {list(DOCKER_ERRORS)}", item["error"])
        check.text(item.get("message", "-"), f"{key}.message")
        return
    status = check.integer(item.get("status", 200), f"{key}.status", minimum=100)
    if status > 599:
        raise check.fail(f"{key}.status", "an HTTP status (100-599)", status)
    bodies = [b for b in ("body", "json", "text") if b in item]
    if len(bodies) > 1:
        raise check.fail(key, "at most one of body (a file), json or text", bodies)
    if "body" in item:
        check.rel_file(root, item["body"], f"{key}.body")
    if "text" in item:
        check.text(item["text"], f"{key}.text", empty=True)
    if item.get("api_version") is not None:
        version = check.text(item["api_version"], f"{key}.api_version")
        if not re.fullmatch(r"\d+\.\d+", version):
            raise check.fail(f"{key}.api_version", 'an API version such as "1.41"', version)


def _json_file(check: _Check, root: Path, value: object, key: str) -> object:
    path = check.rel_file(root, value, key)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise check.fail(key, f"a file of valid JSON ({exc})", value) from None


def _check_shell(check: _Check, root: Path, section: object) -> None:
    """``shell`` (``wslmcp.replay.shell``): the server's env and, when the scenario replays its own
    calls (not only an agent's, as an eval scenario does), the calls with their expected replies."""
    section = check.obj(section, "shell")
    for name, value in check.obj(section.get("env"), "shell.env").items():
        if not isinstance(value, str):
            raise check.fail(f"shell.env.{name}", "a string", value)
    if "calls" not in section:
        return
    calls = section["calls"]
    if not isinstance(calls, list) or not calls:
        raise check.fail("shell.calls", "a non-empty list of tool calls", calls)
    for i, item in enumerate(calls):
        key = f"shell.calls[{i}]"
        call = check.obj(item, key)
        check.text(call.get("tool"), f"{key}.tool")
        check.obj(call.get("args", {}), f"{key}.args")
        advance = call.get("advance_s", 0)
        if isinstance(advance, bool) or not isinstance(advance, int | float) or advance < 0:
            raise check.fail(f"{key}.advance_s", "a number >= 0", advance)
        reply = _json_file(check, root, call.get("expected"), f"{key}.expected")
        if not (
            isinstance(reply, dict)
            and isinstance(reply.get("is_error"), bool)
            and isinstance(reply.get("text"), str)
        ):
            raise check.fail(
                f"{key}.expected", 'a reply {"is_error": bool, "text": str}', call.get("expected")
            )


def _check_profile(check: _Check, root: Path, section: object) -> None:
    """``profile``: the launcher twin's recorded answers and the project the report was made for."""
    section = check.obj(section, "profile")
    if "project" in section and not check.text(section["project"], "profile.project").startswith("/"):
        raise check.fail("profile.project", "an absolute path inside the fixture home", section["project"])
    if "mcp_answers" not in section:
        return
    doc = _json_file(check, root, section["mcp_answers"], "profile.mcp_answers")
    if (
        not isinstance(doc, dict)
        or doc.get("schema") != MCP_ANSWERS_SCHEMA
        or not isinstance(doc.get("answers"), list)
    ):
        raise check.fail("profile.mcp_answers", f'a "{MCP_ANSWERS_SCHEMA}" document with an answers list')
    for i, answer in enumerate(doc["answers"]):
        tools = answer.get("tools", []) if isinstance(answer, dict) else None
        if (
            not isinstance(answer, dict)
            or not isinstance(answer.get("name"), str)
            or not isinstance(tools, list)
            or not all(isinstance(t, dict) for t in tools)
        ):
            raise check.fail(
                "profile.mcp_answers", f"answers[{i}] with a string 'name' and a list of tool objects 'tools'"
            )


def _check_local_files(check: _Check, root: Path, section: object) -> None:
    """``local_files`` (``fakes.local_files``): a fixture directory and the absolute paths it stands for."""
    section = check.obj(section, "local_files")
    check.rel_file(root, section.get("dir"), "local_files.dir", directory=True)
    for key in ("path", "home", "cwd"):
        if key in section or key == "path":
            value = check.text(section.get(key), f"local_files.{key}")
            if not value.startswith("/"):
                raise check.fail(f"local_files.{key}", "an absolute POSIX path", value)


def _check_home(check: _Check, root: Path, home: object) -> None:
    home = check.obj(home, "home")
    check.rel_file(root, home.get("dir"), "home.dir", directory=True)
    path = check.text(home.get("path"), "home.path")
    if not path.startswith("/"):
        raise check.fail("home.path", "an absolute path the fixture home stands for", path)
    check.number(home.get("mtime_default"), "home.mtime_default")
    for rel, mtime in check.obj(home.get("mtimes", {}), "home.mtimes").items():
        check.number(mtime, f"home.mtimes.{rel}")
