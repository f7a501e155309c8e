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

from wslmcp.scenario.exchanges import read_answers, read_exchanges
from wslmcp.scenario.fields import MANIFEST_NAME, Fields, ScenarioError, inside

__all__ = ["MANIFEST_NAME", "SCHEMA", "ScenarioError", "inside", "parse_schema", "read_manifest"]

SCHEMA_NAME = "wslmcp-scenario"
SCHEMA_VERSION = "1.0"
SCHEMA = f"{SCHEMA_NAME}/{SCHEMA_VERSION}"

# Top-level keys. Area sections (observe, shell, profile, eval) are objects their owners validate.
KNOWN_KEYS = {
    "schema", "name", "description", "source", "recorded_at", "recorder", "host", "clock",
    "timeline", "hold_last_ms", "exchanges", "home", "local_files", "expect", "observe", "shell", "profile", "eval",
}  # fmt: skip
# Timeline keys whose value names one JSON sample file (``{"file": rel}``): PDH counters, Windows tables.
SAMPLE_FILE_KEYS = ("pdh", "windows")


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
    check = Fields(file)
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
    read_exchanges(manifest.get("exchanges", {}), check, root)
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


def _check_timeline(check: Fields, root: Path, manifest: Mapping[str, Any]) -> None:
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


def _json_file(check: Fields, root: Path, value: object, key: str) -> object:
    path = check.rel_file(root, value, key)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise check.fail(key, f"a file of valid JSON ({exc})", value) from None


def _check_shell(check: Fields, root: Path, section: object) -> None:
    """``shell`` (``wslmcp.replay.shell``): the server's env and, when the scenario replays its own
    calls (not only an agent's, as an eval scenario does), the calls with their expected replies."""
    section = check.obj(section, "shell")
    for name, value in check.obj(section.get("env"), "shell.env").items():
        if not isinstance(value, str):
            raise check.fail(f"shell.env.{name}", "a string", value)
    if "transport" in section:  # {"kind": "wsl.exe" | "local", "user": "dev"?}: what was recorded
        transport = check.obj(section["transport"], "shell.transport")
        if transport.get("kind") not in ("wsl.exe", "local"):
            raise check.fail("shell.transport.kind", '"wsl.exe" or "local"', transport.get("kind"))
        if "user" in transport:
            check.text(transport["user"], "shell.transport.user")
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


def _check_profile(check: Fields, root: Path, section: object) -> None:
    """``profile``: the launcher twin's recorded answers and the project the report was made for."""
    section = check.obj(section, "profile")
    if "project" in section and not check.text(section["project"], "profile.project").startswith("/"):
        raise check.fail("profile.project", "an absolute path inside the fixture home", section["project"])
    if "mcp_answers" not in section:
        return
    doc = _json_file(check, root, section["mcp_answers"], "profile.mcp_answers")
    read_answers(doc, check, "profile.mcp_answers")


def _check_local_files(check: Fields, root: Path, section: object) -> None:
    """``local_files`` (``wslmcp.fakes.local_files``): a fixture directory and the absolute paths it stands for."""
    section = check.obj(section, "local_files")
    check.rel_file(root, section.get("dir"), "local_files.dir", directory=True)
    for key in ("path", "home", "cwd"):
        if key in section or key == "path":
            value = check.text(section.get(key), f"local_files.{key}")
            if not value.startswith("/"):
                raise check.fail(f"local_files.{key}", "an absolute POSIX path", value)


def _check_home(check: Fields, root: Path, home: object) -> None:
    home = check.obj(home, "home")
    check.rel_file(root, home.get("dir"), "home.dir", directory=True)
    path = check.text(home.get("path"), "home.path")
    if not path.startswith("/"):
        raise check.fail("home.path", "an absolute path the fixture home stands for", path)
    check.number(home.get("mtime_default"), "home.mtime_default")
    for rel, mtime in check.obj(home.get("mtimes", {}), "home.mtimes").items():
        check.number(mtime, f"home.mtimes.{rel}")
