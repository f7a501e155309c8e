"""Validation of the Windows-side fixture formats in scenario.json: PDH and Windows-table samples
on the timeline, recorded Engine answers, the recorded Docker endpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wslmcp.scenario.manifest import SCHEMA, ScenarioError, read_manifest


def _write(root: Path, **extra: Any) -> Path:
    (root / "scenario.json").write_text(json.dumps({"schema": SCHEMA, "name": "w", **extra}))
    return root


def _answers(*items: dict[str, Any]) -> dict[str, Any]:
    return {"exchanges": {"docker_api": list(items)}}


def test_the_windows_side_formats_are_accepted(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text("{}")
    (tmp_path / "b.body").write_text("[]")
    manifest = read_manifest(
        _write(
            tmp_path,
            host={"docker_endpoint": {"url": "unix:///var/run/docker.sock", "source": "default"}},
            timeline=[{"t_ms": 0, "pdh": {"file": "p.json"}, "windows": {"file": "p.json"}}],
            **_answers(
                {
                    "path": "/containers/json",
                    "query": {"all": "0"},
                    "status": 200,
                    "body": "b.body",
                    "api_version": "1.41",
                },
                {"path": "/_ping", "text": "OK", "headers": {"api-version": "1.41"}},
                {"path": "/containers/x/stats", "status": 500, "json": {"message": "boom"}},
                {"path": "/containers/y/top", "error": "timeout", "message": "hung", "duration_ms": 2000},
            ),
        )
    )
    assert len(manifest["exchanges"]["docker_api"]) == 4


@pytest.mark.parametrize(
    ("extra", "where", "expected"),
    [
        (
            {"timeline": [{"t_ms": 0, "pdh": {"file": "missing.json"}}]},
            "timeline[0].pdh.file",
            "an existing file",
        ),
        ({"timeline": [{"t_ms": 0, "windows": "w.json"}]}, "timeline[0].windows", "an object"),
        (
            _answers({"path": "/v1.41/containers/json", "json": []}),
            "exchanges.docker_api[0].path",
            "unversioned",
        ),
        (_answers({"path": "containers/json"}), "exchanges.docker_api[0].path", "unversioned"),
        (_answers({"path": "/x", "error": "boom"}), "exchanges.docker_api[0].error", "one of"),
        (_answers({"path": "/x", "json": [], "text": "OK"}), "exchanges.docker_api[0]", "at most one of"),
        (_answers({"path": "/x", "status": 999}), "exchanges.docker_api[0].status", "an HTTP status"),
        (_answers({"path": "/x", "query": {"all": 1}}), "exchanges.docker_api[0].query.all", "string"),
        (_answers({"path": "/x", "api_version": "latest"}), "exchanges.docker_api[0].api_version", "1.41"),
        ({"host": {"docker_endpoint": {"source": "x"}}}, "host.docker_endpoint.url", "non-empty string"),
    ],
)
def test_bad_windows_side_fixtures_name_the_key(
    tmp_path: Path, extra: dict[str, Any], where: str, expected: str
) -> None:
    with pytest.raises(ScenarioError, match=expected) as info:
        read_manifest(_write(tmp_path, **extra))
    assert info.value.key == where
