"""CI gates: budgets on advertised tokens, a prune gate, and growth between two snapshots.

Exit codes (stable; the report is written in full either way, the gates only set the status):

* 0  every gate passed (or none was asked for);
* 2  a usage error, an unreadable input or an internal error (as without gates);
* 4  ``--fail-over``: a budget was exceeded;
* 8  ``--fail-on prune``: a server's verdict is ``prune``;
* 16 ``diff --fail-on-growth PCT``: a client's advertised total grew by more than PCT percent.

Failed gates OR together (4 | 8 = 12). A budget is ``TOKENS`` or ``total=TOKENS`` (one client's
servers summed: each client has its own context) or ``server=TOKENS`` (every server on its own).
It compares the advertised maximum in the wire form the server's client sends (``wire_tokens``:
o200k_base when the tokenizer is there, else chars/4 of the same text), the number the human
WIRE TOKENS column shows. Servers whose definitions were not observed cannot be counted: they are
named (``not_counted``), never guessed. Growth compares the snapshots' own advertised maxima
(``mcp-top-snapshot/v1`` holds chars/4 estimates) per client.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wslmcp.profile.model import ServerKey

if TYPE_CHECKING:
    from wslmcp.profile.snapshot import Snapshot
    from wslmcp.profile.wire_tokens import WireCounts

EXIT_OVER_BUDGET = 4
EXIT_PRUNE = 8
EXIT_GROWTH = 16
FAIL_ON_CHOICES = ("prune",)


@dataclass(frozen=True)
class Budget:
    scope: str  # "total" | "server"
    limit: int


def parse_budget(text: str) -> Budget:
    """``TOKENS``, ``total=TOKENS`` or ``server=TOKENS`` (a non-negative integer)."""
    scope, sep, number = text.partition("=")
    if not sep:
        scope, number = "total", text
    if scope not in ("total", "server"):
        raise argparse.ArgumentTypeError(f"unknown scope {scope!r} (use total=N or server=N)")
    if not number.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens, got {number!r}")
    return Budget(scope, int(number))


def parse_percent(text: str) -> float:
    value = float(text.removesuffix("%"))
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError("must be a percentage of at least 0")
    return value


@dataclass(frozen=True)
class Outcome:
    code: int
    messages: tuple[str, ...]
    document: tuple[dict[str, Any], ...]


def check(
    budgets: Sequence[Budget],
    fail_on: Sequence[str],
    servers: Iterable[tuple[ServerKey, str]],
    counts: WireCounts,
) -> Outcome:
    """``servers``: every report row's (cli, server) with its verdict, in report order."""
    rows = list(servers)
    code = 0
    messages: list[str] = []
    docs: list[dict[str, Any]] = []
    for budget in budgets:
        over, missing = _budget(budget, rows, counts)
        failed = bool(over)
        code |= EXIT_OVER_BUDGET if failed else 0
        docs.append(
            {
                "gate": "fail-over",
                "scope": budget.scope,
                "limit": budget.limit,
                "failed": failed,
                "over": over,
                "not_counted": [{"cli": c, "server": s} for c, s in missing],
            }
        )
        for item in over:
            who = item["cli"] + (" total" if item["server"] is None else f" {item['server']}")
            messages.append(
                f"gate failed: --fail-over {budget.scope}={budget.limit}: {who} {item['tokens']:,} > "
                f"{budget.limit:,} advertised {item['method']} tokens"
                + ("" if item["exact"] else " (estimate)")
            )
        messages.extend(
            f"gate note: --fail-over {budget.scope}={budget.limit}: not counted: {c} {s} "
            "(definitions unavailable)"
            for c, s in missing
        )
    if "prune" in fail_on:
        pruned = [key for key, verdict in rows if verdict == "prune"]
        code |= EXIT_PRUNE if pruned else 0
        docs.append(
            {
                "gate": "fail-on",
                "condition": "prune",
                "failed": bool(pruned),
                "servers": [{"cli": c, "server": s} for c, s in pruned],
            }
        )
        messages.extend(f"gate failed: --fail-on prune: {c} {s} has verdict prune" for c, s in pruned)
    return Outcome(code, tuple(messages), tuple(docs))


def _budget(
    budget: Budget, rows: Sequence[tuple[ServerKey, str]], counts: WireCounts
) -> tuple[list[dict[str, Any]], list[ServerKey]]:
    over: list[dict[str, Any]] = []
    missing: list[ServerKey] = []
    totals: dict[str, list[Mapping[str, Any]]] = {}
    for key, _verdict in rows:
        if key not in counts:
            continue  # called but not configured: nothing was advertised to count
        from wslmcp.profile.wire_tokens import own_wire  # (a run parses its options before it launches)

        entry = own_wire(counts[key], key[0])
        if entry is None:
            missing.append(key)
            continue
        totals.setdefault(key[0], []).append(entry)
        if budget.scope == "server" and entry["advertised_max"] > budget.limit:
            over.append(_item(key[0], key[1], [entry]))
    if budget.scope == "total":
        for cli, entries in totals.items():
            item = _item(cli, None, entries)
            if item["tokens"] > budget.limit:
                over.append(item)
    return over, missing


def _item(cli: str, server: str | None, entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "cli": cli,
        "server": server,
        "tokens": sum(int(e["advertised_max"]) for e in entries),
        "method": entries[0]["method"],
        "exact": all(e["exact"] for e in entries),
    }


def growth(old: Snapshot, new: Snapshot, percent: float) -> Outcome:
    """Fail when a client's summed advertised maximum grew by more than ``percent`` (snapshots)."""
    before, after = advertised_totals(old), advertised_totals(new)
    code = 0
    messages: list[str] = []
    for cli, total in after.items():
        base = before.get(cli, 0)
        grown = total > base and (base == 0 or (total - base) * 100 / base > percent)
        if grown:
            code = EXIT_GROWTH
            rise = "new" if base == 0 else f"+{(total - base) * 100 / base:.1f}%"
            messages.append(
                f"gate failed: --fail-on-growth {percent:g}: {cli} advertised {base:,} -> {total:,} "
                f"tokens ({rise})"
            )
    return Outcome(code, tuple(messages), ())


def advertised_totals(snapshot: Snapshot) -> dict[str, int]:
    """Each client's summed advertised maximum (mcp-top's chars/4 estimates), by client."""
    return {
        cli.cli: sum(
            s.advertised_max_tokens.value for s in cli.servers if s.advertised_max_tokens is not None
        )
        for cli in snapshot.clis
    }
