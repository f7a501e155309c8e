"""The human report's own lines for the other homes of a run (``--also-home``, the Windows side).

Printed after the primary home's report (which stays mcp-top's, unchanged): one block per other
home, headed by the home and its side, holding that home's coverage, table and notes.
"""

from __future__ import annotations

from wslmcp.profile import report_human, wire_tokens
from wslmcp.profile.engine import Report


def render(report: Report, *, wire: bool = False) -> str:
    """Empty when the run profiled one home; ``wire`` adds each home's WIRE TOKENS column."""
    blocks = []
    note = report.wslmcp.get("token_note")
    for other in report.other_homes:
        counts = wire_tokens.counts_of(report.wslmcp, other.home) if wire else None
        body = report_human.render(other.report, include_prune=False, wire=counts, wire_note=note)
        body = body.removesuffix("\n\n" + other.report.generated_note)
        head = f"== also profiled (wslmcp): {report_human.ascii_only(other.home)} ({other.side} side) =="
        blocks.append(head + "\n\n" + (body or "no supported CLIs detected"))
    return "\n\n".join(blocks)
