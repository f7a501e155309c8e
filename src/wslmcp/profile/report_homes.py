"""The human report's own lines for the other homes of a run (``--also-home``, the Windows side).

Printed after the primary home's report (which stays mcp-top's, unchanged): one block per other
home, headed by the home and its side, holding that home's coverage, table and notes.
"""

from __future__ import annotations

from wslmcp.profile import report_human
from wslmcp.profile.engine import Report


def render(report: Report) -> str:
    """Empty when the run profiled one home."""
    blocks = []
    for other in report.other_homes:
        body = report_human.render(other.report, include_prune=False)
        body = body.removesuffix("\n\n" + other.report.generated_note)
        head = f"== also profiled (wslmcp): {report_human.ascii_only(other.home)} ({other.side} side) =="
        blocks.append(head + "\n\n" + (body or "no supported CLIs detected"))
    return "\n\n".join(blocks)
