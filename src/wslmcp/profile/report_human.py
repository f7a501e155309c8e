"""The human report: coverage first, then the table and its detail lines, then the notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wslmcp.profile import coverage
from wslmcp.profile.engine import CliReport, Report
from wslmcp.profile.prune import Removal
from wslmcp.profile.tokens import Tokens, fmt
from wslmcp.profile.verdicts import Row
from wslmcp.profile.wire_tokens import WireCounts, own_wire

HEADERS = ("SERVER", "SCOPE", "TOOLS", "TOKEN RANGE", "REGIME", "CALLS(window)", "VERDICT")
WIRE_HEADER = "WIRE TOKENS"
#: The column sits after TOKEN RANGE.
_WIRE_AT = HEADERS.index("TOKEN RANGE") + 1


def render(
    report: Report, *, include_prune: bool, wire: WireCounts | None = None, wire_note: str | None = None
) -> str:
    """mcp-top's report; with ``wire`` (wslmcp ``--tokens``) the table gains a WIRE TOKENS column
    and a legend line (plus ``wire_note`` when the counts degraded to estimates)."""
    sections: list[str] = []
    if report.note is not None:
        sections.append(report.note)
    sections.extend(_cli(c, len(report.clis) > 1, wire) for c in report.clis)
    if include_prune:
        sections.append(_prune_block(report))
    if wire is not None:
        sections.append(wire_legend(wire_note))
    sections.append(report.generated_note)
    return "\n\n".join(sections)


def ascii_only(text: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)


def removal_range(advertised: Tokens, floor: Tokens | None) -> str:
    return f"removes advertised up to {fmt(advertised)} / upfront at least {'unknown' if floor is None else fmt(floor)}"


def token_range(row: Row) -> str:
    high, low = row.advertised_max_tokens, row.upfront_floor_tokens
    if high is None:
        return "?"
    if low is not None and low == high:
        return fmt(high)
    return f">={'?' if low is None else fmt(low)}..{fmt(high)}"


def _verdict_cell(row: Row, kinds: dict[str, str]) -> str:
    text = row.verdict
    if row.verdict == "prune":
        kind = kinds.get(row.server)
        if kind == "suggestion" and row.advertised_max_tokens is not None:
            text = "prune -> " + removal_range(row.advertised_max_tokens, row.upfront_floor_tokens)
        elif kind == "candidate":
            text = "prune candidate"
    if row.filtered_tools:
        text += f" ({row.filtered_tools} tool(s) hidden by config filters)"
    return text


def wire_cell(counts: Sequence[Mapping[str, Any]], cli: str) -> str:
    """``>=floor..max (exact)`` in the client's own wire; ``(estimate)`` when not exact; ? unknown."""
    entry = own_wire(counts, cli)
    if entry is None:
        return "?"
    high, low = entry["advertised_max"], entry["upfront_floor"]
    span = f"{high:,}" if low == high else f">={'?' if low is None else f'{low:,}'}..{high:,}"
    return f"{span} {entry['method']} ({'exact' if entry['exact'] else 'estimate'})"


def wire_legend(note: str | None) -> str:
    line = (
        f"{WIRE_HEADER}: tokens of the provider request JSON each client sends (claude-code rows: "
        "Anthropic tools[]; codex and cursor rows: OpenAI functions[]); an o200k_base count is exact for "
        "OpenAI GPT-4o-family models and only an estimate for Claude."
    )
    return line if note is None else f"{line}\n{note}"


def _cli(report: CliReport, header: bool, wire: WireCounts | None = None) -> str:
    kinds = {r.server: r.kind for r in report.removals}
    body: list[tuple[str, ...]] = [
        (
            row.server,
            row.scope,
            "?" if row.tool_count is None else str(row.tool_count),
            token_range(row),
            row.loading_regime,
            "-" if row.calls is None else str(row.calls),
            _verdict_cell(row, kinds),
        )
        for row in report.rows
    ]
    headers: tuple[str, ...] = HEADERS
    if wire is not None:
        headers = (*HEADERS[:_WIRE_AT], WIRE_HEADER, *HEADERS[_WIRE_AT:])
        body = [
            (
                *cells[:_WIRE_AT],
                wire_cell(wire.get((report.cli, row.server), ()), report.cli),
                *cells[_WIRE_AT:],
            )
            for cells, row in zip(body, report.rows, strict=True)
        ]
    widths = [max([len(headers[i])] + [len(cells[i]) for cells in body]) for i in range(len(headers))]
    lines = [_line(headers, widths), "  ".join("-" * w for w in widths)]
    lines.extend(_line(cells, widths) for cells in body)
    for row in report.rows:
        if row.def_status != "ok":
            lines.append(f"  {row.server}: definitions unavailable -- {row.def_error or 'unknown error'}")
    for row in report.rows:
        fp = row.recorded_result_footprint
        if fp is not None:
            lines.append(
                f"  {ascii_only(row.server)} recorded result footprint: {fp.total_bytes} recorded UTF-8 byte(s) "
                f"(lower bound) -> {fmt(fp.total_tokens)} tok (estimate) across {fp.results} result(s) "
                f"(max {fmt(fp.max_tokens)}, p90 {fmt(fp.p90_tokens)})"
            )
    breakdown: list[str] = []
    for row in report.rows:
        if row.verdict not in ("review", "keep") or not row.called_tools:
            continue
        breakdown.append(f"{row.server} called tools:")
        for tool, count in sorted(row.called_tools.items(), key=lambda item: (-item[1], item[0])):
            breakdown.append(f"  - {tool}: {count}")
    parts = [f"=== {report.cli} ==="] if header else []
    parts.extend([coverage.render(report.coverage), "\n".join(lines)])
    if breakdown:
        parts.append("\n".join(breakdown))
    return "\n\n".join(parts)


def _line(cells: tuple[str, ...], widths: list[int]) -> str:
    return "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells)).rstrip()


def _removal_head(cli: str, item: Removal) -> str:
    return (
        f"  - [{cli}] {ascii_only(item.server)} ({item.scope}) in {ascii_only(item.source_path)} -> "
        + removal_range(item.removes_advertised_max_tokens, item.removes_upfront_floor_tokens)
    )


def _prune_block(report: Report) -> str:
    lines = ["Suggested removals (never applied; wslmcp is read-only -- edit configs yourself):"]
    suggestions = [(c.cli, r) for c in report.clis for r in c.removals if r.kind == "suggestion"]
    for cli, item in suggestions:
        lines.append(_removal_head(cli, item))
        command = item.command_line()
        if command is not None:
            lines.append(f"      command: {ascii_only(command)}")
        else:
            lines.append(f"      edit: {ascii_only(str(item.recipe()['change']))}")
    if suggestions:
        lines.append("  (~ marks a chars/4 estimate, rough error +/-25%)")
    else:
        lines.append("  none")
    lines.append("")
    lines.append("Prune candidates -- review before removing (actual removal impact unknown):")
    candidates = [(c.cli, r) for c in report.clis for r in c.removals if r.kind == "candidate"]
    unavailable = [c.cli for c in report.clis if c.window is None]
    if not candidates and not unavailable:
        lines.append("  none")
    for cli, item in candidates:
        lines.append(_removal_head(cli, item) + ", actual removal impact unknown")
        lines.extend(f"      * {ascii_only(reason)}" for reason in item.reasons)
        lines.append(f"      edit: {ascii_only(str(item.recipe()['change']))}")
    for cli in unavailable:
        lines.append(f"  - [{cli}] usage unavailable (no transcript adapter) -- no prune analysis")
    return "\n".join(lines)
