"""The transport's judgement of a line, as a pure function: it never raises, and a request with a
usable id that the SDK refuses is always answered with that id."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.faults.test_fuzz import TEXT, VALUES, requests
from wslmcp.protocol import QUOTE_CHARS
from wslmcp.serving import Answer, Drop, Forward, judge


@given(st.text(st.characters(categories=["L", "N", "P", "S", "Zs", "Cc", "Cs"]), max_size=80))
def test_any_text_is_judged_without_raising(line: str) -> None:
    verdict = judge(line)
    assert verdict is None or isinstance(verdict, Forward | Answer | Drop)
    if isinstance(verdict, Answer):
        for text in verdict.lines:
            frame = json.loads(text)
            assert frame["jsonrpc"] == "2.0" and set(frame) == {"jsonrpc", "id", "error"}
            assert len(frame["error"]["message"]) <= QUOTE_CHARS + 200


@given(
    requests(["get_system_summary"], ["max_age_ms"]),
    st.integers(0, 10**9) | TEXT,
)
def test_a_refused_request_with_an_id_is_answered_with_that_id(frame: dict[str, object], rid: object) -> None:
    frame = {**frame, "id": rid}
    verdict = judge(json.dumps(frame, ensure_ascii=True))
    if isinstance(verdict, Forward):
        return  # the SDK took it: the server answers
    assert isinstance(verdict, Answer), verdict
    [line] = verdict.lines
    assert json.loads(line)["id"] == rid


@given(st.lists(VALUES, max_size=4))
def test_a_batch_is_always_refused(items: list[object]) -> None:
    verdict = judge(json.dumps(items, ensure_ascii=True))
    assert isinstance(verdict, Answer)
    assert all(json.loads(t)["error"]["code"] == -32600 for t in verdict.lines)


@given(st.integers(0, 10**9) | TEXT, st.integers(1100, 6000), st.booleans())
def test_a_frame_nested_too_deeply_is_answered_with_its_own_id(
    rid: object, depth: int, id_first: bool
) -> None:
    """A request whose arguments are nested past what the decoder takes still names the request it
    refuses (the client waits on that id), wherever the id stands in the frame."""
    nested = "[" * depth + "]" * depth
    members = ['"jsonrpc": "2.0"', '"method": "tools/call"', f'"params": {{"arguments": {{"a": {nested}}}}}']
    members.insert(0 if id_first else 3, f'"id": {json.dumps(rid)}')
    verdict = judge("{" + ", ".join(members) + "}")
    assert isinstance(verdict, Answer)
    [line] = verdict.lines
    assert json.loads(line)["id"] == rid


def test_a_nested_id_is_not_taken_for_the_frames_own() -> None:
    nested = "[" * 3000 + "]" * 3000
    verdict = judge('{"jsonrpc": "2.0", "method": "m", "params": {"id": 7, "a": ' + nested + "}}")
    assert isinstance(verdict, Answer)
    assert json.loads(verdict.lines[0])["id"] is None
