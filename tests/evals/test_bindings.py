"""ID binding by role: snapshot, resource, parent and session handles; unresolved, unbound, mixing."""

from __future__ import annotations

from wslmcp.evals.bindings import HandleTable, bind, handles


def listing(sid: str, *rids: str, parents: tuple[str, ...] = ()) -> dict[str, object]:
    return {
        "snapshot": {"snapshot_id": sid},
        "data": [{"resource_id": r, "parent_ids": list(parents), "usage": {}} for r in rids],
    }


def tables(*answers: tuple[int, dict[str, object], dict[str, object]]) -> tuple[HandleTable, HandleTable]:
    recorded, replayed = HandleTable(), HandleTable()
    for n, rec, rep in answers:
        recorded.register("o", n, handles("observe", "list_resources", rec, ""))
        replayed.register("o", n, handles("observe", "list_resources", rep, ""))
    return recorded, replayed


def test_snapshot_resource_and_parent_are_rewritten_from_the_earliest_producer() -> None:
    recorded, replayed = tables(
        (
            1,
            listing("S-live", "r-a", "r-b", parents=("p-live",)),
            listing("S-new", "r-A", "r-B", parents=("p-new",)),
        ),
        (2, listing("S-live", "r-a"), listing("S-new", "r-A")),
    )
    sent, reports = bind(
        "o",
        "observe",
        3,
        {"snapshot_id": "S-live", "resource_id": "r-b", "parent": "p-live"},
        recorded=recorded,
        replayed=replayed,
    )
    assert sent == {"snapshot_id": "S-new", "resource_id": "r-B", "parent": "p-new"}
    assert [(r["argument"], r["state"], r["origin"]) for r in reports] == [
        ("snapshot_id", "bound", {"call": 1, "path": "snapshot.snapshot_id"}),
        ("resource_id", "bound", {"call": 1, "path": "data[1].resource_id"}),
        ("parent", "bound", {"call": 1, "path": "data[0].parent_ids[0]"}),
    ]


def test_unbound_ids_are_sent_verbatim_and_unresolved_ones_marked() -> None:
    recorded, replayed = tables((1, listing("S", "r-a", "r-b"), listing("S2", "r-A")))
    sent, reports = bind(
        "o",
        "observe",
        2,
        {"snapshot_id": "S-other", "resource_id": "r-b"},
        recorded=recorded,
        replayed=replayed,
    )
    assert sent == {"snapshot_id": "S-other", "resource_id": "r-b"}
    assert [r["state"] for r in reports] == ["unbound", "unresolved"]


def test_an_id_is_only_bound_to_an_earlier_call() -> None:
    recorded, replayed = tables((2, listing("S", "r-a"), listing("S2", "r-A")))
    _, reports = bind("o", "observe", 2, {"snapshot_id": "S"}, recorded=recorded, replayed=replayed)
    assert reports[0]["state"] == "unbound"


def test_mixing_is_reproduced_argument_by_argument() -> None:
    recorded, replayed = tables(
        (1, listing("S-A", "r-1"), listing("S-A2", "r-1x")),
        (2, listing("S-B", "r-2"), listing("S-B2", "r-2x")),
    )
    sent, _ = bind(
        "o", "observe", 3, {"snapshot_id": "S-B", "resource_id": "r-1"}, recorded=recorded, replayed=replayed
    )
    assert sent == {"snapshot_id": "S-B2", "resource_id": "r-1x"}


def test_shell_sessions_from_connect_and_list_sessions() -> None:
    recorded, replayed = HandleTable(), HandleTable()
    recorded.register(
        "s", 1, handles("shell", "wsl_connect", None, "Opened session Ubuntu#3 → dev@Ubuntu\ncwd: /")
    )
    replayed.register(
        "s", 1, handles("shell", "wsl_connect", None, "Opened session Ubuntu#1 → dev@Ubuntu\ncwd: /")
    )
    listed = "2 open session(s):\n\nUbuntu#3  →  dev@Ubuntu\n    cwd: /\nUbuntu#4  →  dev@Ubuntu"
    assert list(handles("shell", "wsl_list_sessions", None, listed)) == [
        ("sessions[0]", "Ubuntu#3"),
        ("sessions[1]", "Ubuntu#4"),
    ]
    sent, reports = bind(
        "s", "shell", 2, {"session": "Ubuntu#3", "command": "ls"}, recorded=recorded, replayed=replayed
    )
    assert sent == {"session": "Ubuntu#1", "command": "ls"} and reports[0]["state"] == "bound"
