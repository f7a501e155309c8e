"""Every case of the corpus, decided by the real guard: verdict and rule must both match."""

from __future__ import annotations

import pytest

from tests.guard.corpus import Case, load
from wslmcp.shell.guard import Decision, Guard

CASES = load()


def decide(case: Case) -> Decision:
    guard = Guard(case.policy)
    if case.check == "command":
        return guard.check_command(case.text, case.cwd)
    if case.check == "path":
        return guard.check_path(case.text, case.access)  # type: ignore[arg-type]
    if case.check == "local":
        return guard.check_local_path(case.text, case.access)  # type: ignore[arg-type]
    if case.check == "cwd":
        return guard.check_cwd(case.text)
    raise AssertionError(f"unknown check {case.check}")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_case(case: Case) -> None:
    decision = decide(case)
    assert (decision.verdict, decision.rule) == (case.verdict, case.rule), (
        f"{case.check} {case.text!r} under [{case.policy_line}]: {decision.reason}"
    )
    if decision.verdict == "reject":
        assert decision.reason and decision.reason.endswith("nothing was run")
    else:
        assert decision.rule is None and decision.reason is None


def test_corpus_covers_every_rule_family() -> None:
    rules = {c.rule for c in CASES if c.rule}
    for family in (
        "catastrophe.rm_root",
        "catastrophe.critical_file",
        "catastrophe.mkfs",
        "catastrophe.block_device",
        "catastrophe.power",
        "catastrophe.fork_bomb",
        "catastrophe.chmod_root",
        "catastrophe.crontab_remove",
        "catastrophe.wsl_shutdown",
        "catastrophe.firewall_flush",
        "readonly.write",
        "readonly.redirect",
        "sudo",
        "windows.interop",
        "windows.mnt_write",
        "operator_path",
        "allow_commands",
        "deny_pattern",
        "allowed_paths",
        "parse.too_deep",
        "parse.empty",
        "cwd.metachar",
        "path.empty",
    ):
        assert family in rules, family
