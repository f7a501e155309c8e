"""The recording wrapper writes the fake's fixture format, and the fake reads it back strictly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wslmcp.boundaries.mcp_launcher import ServerAnswer, ServerSpec
from wslmcp.fakes.mcp_launcher import SCHEMA, FakeMcpLauncher, RecordingMcpLauncher, load_answers


def test_recording_round_trips_and_rewrites_the_machine_path(tmp_path: Path) -> None:
    inner = FakeMcpLauncher(
        [
            ServerAnswer(
                name="a",
                server_name="A",
                instructions="see /tmp/x1/home/doc",
                tools=({"name": "t"},),
                duration_s=0.25,
            ),
            ServerAnswer(name="b", error="cwd does not exist: /tmp/x1/home/nope"),
        ]
    )
    out = tmp_path / "rec" / "answers.json"
    recorder = RecordingMcpLauncher(inner, out, rewrite={"/tmp/x1/home": "/home/user"})
    for name in ("a", "b"):
        recorder.query(ServerSpec(name=name, command="secret-command", args=("--token", "secret-arg")), 5.0)
    text = out.read_text()
    assert "/tmp/x1" not in text and "secret-" not in text
    assert json.loads(text)["schema"] == SCHEMA
    assert [p.name for p in out.parent.iterdir()] == ["answers.json"], "no temporary file left behind"
    replayed = load_answers(out)
    assert replayed[0].instructions == "see /home/user/doc" and replayed[0].duration_s == 0.25
    assert replayed[1].error == "cwd does not exist: /home/user/nope"
    again = FakeMcpLauncher(replayed).query(ServerSpec(name="a", command="x"), 5.0)
    assert again.tools == ({"name": "t"},)


def test_a_lone_surrogate_is_recorded_escaped_and_replayed_as_received(tmp_path: Path) -> None:
    tools = ({"name": "t", "description": "lone \ud800 and paired \U0001f680 and \u00fc"},)
    inner = FakeMcpLauncher([ServerAnswer(name="a", instructions="x \udfff", tools=tools)])
    out = tmp_path / "answers.json"
    RecordingMcpLauncher(inner, out).query(ServerSpec(name="a", command="x"), 5.0)
    text = out.read_text(encoding="utf-8")
    assert "\\ud800" in text and "\U0001f680 and \u00fc" in text, "valid text stays unescaped"
    replayed = load_answers(out)[0]
    assert (replayed.tools, replayed.instructions) == (tools, "x \udfff")


def test_repeated_names_replay_in_recorded_order_then_the_last_repeats() -> None:
    fake = FakeMcpLauncher([ServerAnswer(name="a", error="first"), ServerAnswer(name="a", error="second")])
    got = [(fake.query(ServerSpec(name="a", command="x"), 1.0)).error for _ in range(3)]
    assert got == ["first", "second", "second"]


@pytest.mark.parametrize(
    "doc",
    [
        {"schema": "other", "answers": []},
        {"schema": SCHEMA},
        {"schema": SCHEMA, "answers": [{"tools": []}]},
        {"schema": SCHEMA, "answers": [{"name": "a", "tools": [1]}]},
        {"schema": SCHEMA, "answers": [{"name": "a", "error": 5}]},
    ],
)
def test_malformed_fixtures_are_rejected_with_the_file_named(tmp_path: Path, doc: object) -> None:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"answers\.json"):
        load_answers(path)
