"""Every check fails on a session of its own and passes on a near-miss; the registry is exactly 32."""

from __future__ import annotations

import pytest

from tests.evals.pairs import (
    GW,
    MAKE,
    OBS,
    PAIRS,
    Q_CPU,
    R_GW,
    S1,
    S2,
    B,
    listing,
    most_cpu,
    summary,
    tool_error,
)
from wslmcp.evals.cases import Case, infer
from wslmcp.evals.rubric import REGISTRY, grade
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Call, Message, Result, Trace, text_content


def session(trace: Trace, case: Case, **kw: object) -> Session:
    kinds = {OBS: "observe", "wsl-shell": "shell"}
    tools = {OBS: {"get_system_summary", "list_resources", "inspect_resource", "list_children"}}
    return Session(trace, kinds, case, tools=tools, distro="Ubuntu", **kw)  # type: ignore[arg-type]


def status(check: str, trace: Trace, case: Case, **kw: object) -> tuple[str, str]:
    result = next(r for r in grade(session(trace, case, **kw)) if r.id == check)
    return result.status, result.message


def test_registry_has_the_32_checks() -> None:
    assert len(REGISTRY) == 32
    assert set(PAIRS) | {"replay.no_drift"} == set(REGISTRY)


@pytest.mark.parametrize("check", sorted(PAIRS))
def test_check_fails_on_its_trace(check: str) -> None:
    bad, _, case = PAIRS[check]
    got, message = status(check, bad(), case)
    assert got == "fail", message
    assert message


@pytest.mark.parametrize("check", sorted(PAIRS))
def test_check_passes_on_the_near_miss(check: str) -> None:
    _, good, case = PAIRS[check]
    got, message = status(check, good(), case)
    assert got == "pass", message


def test_no_drift_skips_without_replay_fails_on_drift_passes_without() -> None:
    trace = most_cpu("gw_sh").trace
    assert status("replay.no_drift", trace, PAIRS["tools.mcp_only"][2])[0] == "skip"
    drift = [{"call": 1, "kind": "value_changed", "recorded": "a", "replayed": "b"}]
    assert status("replay.no_drift", trace, PAIRS["tools.mcp_only"][2], drift=drift)[0] == "fail"
    assert status("replay.no_drift", trace, PAIRS["tools.mcp_only"][2], drift=[])[0] == "pass"


def test_inferred_intent_never_gates_unless_strict() -> None:
    trace = most_cpu(
        "gw_sh", first={"max_age_ms": 0, "sort_by": "cpu", "sort_order": "asc", "limit": 1}
    ).trace
    case = infer(Q_CPU)
    assert case.intent.sort_by == "cpu" and case.intent.fresh
    loose = next(r for r in grade(session(trace, case)) if r.id == "intent.sort_matches_question")
    assert (loose.status, loose.severity, loose.gating) == ("fail", "warn", False)
    strict = next(
        r for r in grade(session(trace, case, strict_intent=True)) if r.id == "intent.sort_matches_question"
    )
    assert strict.gating


def test_inference_rules_read_top_n_memory_and_containers() -> None:
    assert infer("Show the top 5 processes by CPU").intent.limit == 5
    mem = infer("Which WSL process uses the most memory?")
    assert (mem.intent.sort_by, mem.intent.environment) == ("memory", "wsl")
    assert [w["environment"] for _, w in infer("Is an unusual container running?").required_calls] == [
        "docker",
        "wslc",
    ]


def test_missing_results_are_graded_from_the_replayed_ones() -> None:
    trace = (
        B()
        .user(Q_CPU)
        .obs("list_resources", {"max_age_ms": 0, "limit": 1}, Result("missing"))
        .say("make")
        .trace
    )
    s = session(trace, PAIRS["answer.names_top_resource"][2], replayed={1: listing(S1, GW)})
    got = next(r for r in grade(s) if r.id == "answer.names_top_resource")
    assert got.status == "fail" and "gw_sh" in got.message


def test_the_case_applies_to_the_chosen_investigation() -> None:
    trace = (
        most_cpu("make is the busiest.")  # investigation 1 names the wrong process
        .user("And now?")
        .obs("list_resources", {"max_age_ms": 0, "limit": 1}, listing(S1, GW))
        .say("gw_sh is the busiest.")
        .trace
    )
    case = PAIRS["answer.names_top_resource"][2]
    last = next(r for r in grade(session(trace, case)) if r.id == "answer.names_top_resource")
    first = next(r for r in grade(session(trace, case, target=0)) if r.id == "answer.names_top_resource")
    assert (last.status, first.status) == ("pass", "fail")


NEAR_MISSES = [
    (
        "answer.container_membership_from_hierarchy",
        "The docker environment is null and gw_sh is in WSL.",
        True,
    ),
    ("answer.container_membership_from_hierarchy", "gw_sh runs in a Docker container, not in WSL.", False),
    ("answer.null_not_zero", "The host has 0% other load; Docker wasn't measured.", True),
    ("answer.null_not_zero", "WSL is busy, while Docker sits at 0%.", False),
    ("answer.no_memory_inference", "Whether the host is paging, these figures can't tell.", True),
    ("answer.no_memory_inference", "There is no sign of a leak, but the host is swapping.", False),
    ("answer.children_from_hierarchy", "make spawned gw_sh, but no children were listed.", False),
]


@pytest.mark.parametrize(("check", "answer", "passes"), NEAR_MISSES)
def test_claims_are_judged_per_clause(check: str, answer: str, passes: bool) -> None:
    from tests.evals.pairs import _summary_answer, drill

    if check == "answer.children_from_hierarchy":
        trace = drill(answer).trace
    elif check == "answer.container_membership_from_hierarchy":
        trace = most_cpu(answer).trace
    else:
        trace = _summary_answer(answer)
    got, message = status(check, trace, PAIRS[check][2])
    assert got == ("pass" if passes else "fail"), message


def _parallel(*calls: tuple[str, dict[str, object], Result, int]) -> Trace:
    """One question, then observe calls with explicit groups (calls of one group were sent together)."""
    events: list[object] = [Message("user", Q_MEM)]
    for n, (tool, args, result, group) in enumerate(calls, 1):
        events.append(Call(n, f"c{n}", OBS, tool, dict(args), group, result))
    events.append(Message("assistant", "gw_sh holds 738 MiB."))
    return Trace({"format": "wslmcp-trace"}, events)  # type: ignore[arg-type]


Q_MEM = "How much memory does gw_sh hold?"
LATEST = {"max_age_ms": 0}


def test_a_parallel_latest_read_is_no_silent_refresh_but_still_mixes() -> None:
    trace = _parallel(
        ("list_resources", LATEST, listing(S1, GW), 1), ("get_system_summary", LATEST, summary(S2), 1)
    )
    assert status("snapshot.preserved", trace, infer(Q_MEM))[0] == "pass"
    assert status("snapshot.no_mixing", trace, infer(Q_MEM))[0] == "fail"
    later = _parallel(
        ("list_resources", LATEST, listing(S1, GW), 1), ("get_system_summary", LATEST, summary(S2), 2)
    )
    assert status("snapshot.preserved", later, infer(Q_MEM))[0] == "fail"


def test_a_call_sent_beside_an_error_is_no_reaction_to_it() -> None:
    stale = {"snapshot_id": S1, "resource_id": R_GW}
    trace = _parallel(
        ("inspect_resource", stale, tool_error("snapshot_unavailable"), 1),
        ("inspect_resource", stale, tool_error("snapshot_unavailable"), 1),
        ("list_resources", LATEST, listing(S2, GW), 2),
    )
    assert status("errors.restart_after_unavailable", trace, infer(Q_MEM))[0] == "pass"
    assert status("errors.no_identical_retry", trace, infer(Q_MEM))[0] == "pass"
    serial = _parallel(
        ("inspect_resource", stale, tool_error("snapshot_unavailable"), 1),
        ("inspect_resource", stale, tool_error("snapshot_unavailable"), 2),
    )
    assert status("errors.restart_after_unavailable", serial, infer(Q_MEM))[0] == "fail"
    assert status("errors.no_identical_retry", serial, infer(Q_MEM))[0] == "fail"


def _follow_up(answer: str) -> Trace:
    top_two = {"max_age_ms": 0, "sort_by": "cpu", "sort_order": "desc", "limit": 2}
    return (
        B()
        .user(Q_CPU)
        .obs("list_resources", top_two, listing(S1, GW, MAKE))
        .say("gw_sh is the busiest, then make.")
        .user("What is running underneath it?")
        .obs("list_children", {"snapshot_id": S1, "resource_id": R_GW}, listing(S1))
        .say(answer)
        .trace
    )


@pytest.mark.parametrize(
    ("check", "wrong", "right"),
    [
        (
            "answer.children_from_hierarchy",
            "gw_sh spawned make as a child.",
            "Nothing runs underneath gw_sh.",
        ),
        ("answer.cpu_scale", "gw_sh uses 6.25% of one core.", "gw_sh uses 100% of one core."),
    ],
)
def test_a_follow_up_answer_is_judged_on_the_results_it_carries_on(
    check: str, wrong: str, right: str
) -> None:
    follow_up = infer("What is running underneath it?", earlier=True)
    assert not follow_up.intent.fresh
    assert status(check, _follow_up(wrong), follow_up)[0] == "fail"
    assert status(check, _follow_up(right), follow_up)[0] == "pass"


def test_a_question_about_wsl_processes_asks_for_the_wsl_environment() -> None:
    assert infer("Which WSL process is the busiest?").intent.environment == "wsl"
    assert infer("List the WSL processes by CPU").intent.environment == "wsl"
    assert infer("Is Windows or WSL using more CPU right now?").intent.environment is None


def test_repeating_a_call_the_client_itself_refused_is_an_identical_retry() -> None:
    refused = Result(
        "client_error",
        text_content("<tool_use_error>InputValidationError: limit: expected number</tool_use_error>"),
    )
    bad = {"max_age_ms": 0, "limit": "5"}
    same = _parallel(("list_resources", bad, refused, 1), ("list_resources", bad, refused, 2))
    assert status("errors.no_identical_retry", same, infer(Q_MEM))[0] == "fail"
    fixed = _parallel(
        ("list_resources", bad, refused, 1), ("list_resources", {**bad, "limit": 5}, listing(S1, GW), 2)
    )
    assert status("errors.no_identical_retry", fixed, infer(Q_MEM))[0] == "pass"
