"""The two ways a shell tool call fails: the guard refused it (nothing ran), or it failed."""

from __future__ import annotations

from wslmcp.arguments import quoted
from wslmcp.shell.guard import Decision


class Refused(Exception):
    """The guard rejected the request before anything ran."""

    def __init__(self, decision: Decision, action: str, note: str | None = None) -> None:
        self.decision = decision
        self.action = action
        self.note = note  # whether a person was asked, and why no one said yes
        super().__init__(decision.reason or "refused by the guard")

    def noted(self, note: str) -> Refused:
        return Refused(self.decision, self.action, note)

    def render(self) -> str:
        d = self.decision
        reason = quoted((d.reason or "no reason given").removesuffix("; nothing was run"))
        lines = [f"Refused by this profile's guard policy: {reason}"]
        if d.rule:
            lines.append(f"Rule: {d.rule}")
        others = list(dict.fromkeys(o.rule for o in d.others if o.rule and o.rule != d.rule))
        if others:
            lines.append(f"Also refused by: {', '.join(others)}")
        if d.segment and d.segment.strip() != self.action.strip():
            lines.append(f"Offending part: {quoted(d.segment)}")
        lines.append(f"Requested: {quoted(self.action)}")
        if self.note:
            lines.append(self.note)
        lines.append(
            "Nothing was run in the distro. This is a policy decision: do not retry it in another "
            "spelling; adjust the request, or ask the operator to change the profile."
        )
        return "\n".join(lines)


class ToolFailure(Exception):
    """A request that could not be carried out; the message says why and what to do."""
