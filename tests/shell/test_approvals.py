"""A person who can say yes (issue 26, item 4), over real stdio with the SDK client's elicitation
callback, in both protocol eras: ``elicitation/create`` before 2026-07-28, an ``input_required``
result from it (the SDK client answers it through the same callback and calls again).

Each case first shows what the guard refuses reaches its harm when it runs (a person who accepts
makes it happen), then that decline, cancel, a client that cannot ask, ``WSL_APPROVALS=never`` and the
refusals never asked leave it undone; the audit log holds every question and answer.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.faults.rig import shell_command, shell_env
from tests.shell.conftest import survivors
from tests.shell.test_sandbox_dynamic import REASON as NO_SANDBOX

ERAS = ["legacy", "2026-07-28"]
BASHRC = "# my bashrc\n"
PATH_LINE = 'export PATH="$HOME/.local/bin:$PATH"'


@dataclass
class Person:
    """The person behind the client: answers each question in turn, and remembers what was asked."""

    answers: list[tuple[str, dict[str, Any] | None]] = field(default_factory=list)
    asked: list[types.ElicitRequestFormParams] = field(default_factory=list)

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams), params
        self.asked.append(params)
        action, content = self.answers.pop(0)
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]


@dataclass
class Home:
    path: Path
    audit: Path

    def bashrc(self) -> str:
        return (self.path / ".bashrc").read_text()

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.audit.read_text().splitlines()]


@pytest.fixture
def home(tmp_path: Path) -> Home:
    path = tmp_path / "home"
    (path / "proj").mkdir(parents=True)
    (path / ".bashrc").write_text(BASHRC)
    (path / ".ssh").mkdir()
    (path / ".ssh" / "id_ed25519").write_text("key")
    return Home(path, tmp_path / "audit.log")


@asynccontextmanager
async def serving(home: Home, mode: str, person: Person | None, **env: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=shell_command()[0],
        args=shell_command()[1:],
        env=shell_env(home.path, WSL_AUDIT_LOG=str(home.audit), **env),
        cwd=str(home.path),
    )
    async with Client(params, mode=mode, elicitation_callback=person) as client:  # type: ignore[arg-type]
        yield client


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def _exec(client: Client, command: str, **more: Any) -> types.CallToolResult:
    return await client.call_tool("wsl_exec", {"command": command, **more})


def test_appending_to_bashrc_changes_what_every_later_shell_runs(home: Home) -> None:
    """The harm the persistence refusal keeps out, reached without the guard."""
    subprocess.run(
        ["bash", "-c", f"echo '{PATH_LINE}' >> ~/.bashrc"], env={"HOME": str(home.path)}, check=True
    )
    assert PATH_LINE in home.bashrc()


@pytest.mark.parametrize("mode", ERAS)
async def test_accept_runs_it_once_decline_and_cancel_run_nothing(home: Home, mode: str) -> None:
    person = Person([("accept", {"always": False}), ("decline", None), ("cancel", None), ("accept", {})])
    async with serving(home, mode, person, WSL_ALLOW_SUDO="false") as client:
        accepted = await _exec(client, f"echo '{PATH_LINE}' >> ~/.bashrc")
        assert not accepted.is_error, _text(accepted)
        assert home.bashrc() == BASHRC + PATH_LINE + "\n"
        question = person.asked[0]
        assert question.message.splitlines()[:2] == [
            "Allow wsl_exec to do this once?",
            f"echo '{PATH_LINE}' >> ~/.bashrc",
        ]
        assert "Refused by persistence: writing ~/.bashrc (shell startup file)" in question.message
        assert question.requested_schema["properties"]["always"]["type"] == "boolean"
        assert "persistence for echo" in question.requested_schema["properties"]["always"]["description"]

        declined = await _exec(client, "echo again >> ~/.bashrc")
        cancelled = await _exec(client, "sudo -n true > ~/proj/ran")
        assert declined.is_error and "A person was asked and declined" in _text(declined)
        assert cancelled.is_error and "A person was asked and dismissed the question" in _text(cancelled)
        assert home.bashrc() == BASHRC + PATH_LINE + "\n" and not (home.path / "proj" / "ran").exists()
        assert "Refused by sudo" in person.asked[2].message

        again = await _exec(client, "echo three >> ~/.bashrc")  # accepted once: asked again
        assert not again.is_error and len(person.asked) == 4

    lines = [line for line in home.lines() if line["tool"] == "wsl_exec" and "approval" in line]
    answers = [line["approval"][-1]["answer"] for line in lines]
    assert [a for a in answers if a != "pending (input_required)"] == [
        "accept",
        "decline",
        "cancel",
        "accept",
    ]
    final = [line for line in lines if line["approval"][-1]["answer"] != "pending (input_required)"]
    assert [line["verdict"] for line in final] == ["approved", "reject", "reject", "approved"]
    assert [line["exit_code"] for line in final] == [0, None, None, 0]
    assert final[0]["approval"][-1]["question"] == question.message
    assert final[0]["approval"][-1]["rules"] == ["persistence"]
    if mode != "legacy":  # the first round of each call answered input_required, and was logged
        assert answers.count("pending (input_required)") == 4


@pytest.mark.parametrize("mode", ERAS)
async def test_always_approves_the_rule_for_that_program_only(home: Home, mode: str) -> None:
    person = Person([("accept", {"always": True}), ("accept", {"always": False}), ("accept", None)])
    async with serving(home, mode, person) as client:
        for n in range(3):  # asked once, then not again for echo
            ran = await _exec(client, f"echo line{n} >> ~/.bashrc")
            assert not ran.is_error, _text(ran)
        assert len(person.asked) == 1
        other = await _exec(client, "printf 'x\\n' >> ~/.profile")  # another program: asked
        assert not other.is_error and len(person.asked) == 2
        assert (
            "persistence for printf"
            in person.asked[1].requested_schema["properties"]["always"]["description"]
        )
        hooks = await _exec(client, "git init -q repo && git -C repo config core.hooksPath .githooks")
        assert not hooks.is_error and len(person.asked) == 3, _text(hooks)
        assert "Refused by persistence: 'git config core.hookspath'" in person.asked[2].message
    assert home.bashrc() == BASHRC + "line0\nline1\nline2\n"
    assert "hooksPath = .githooks" in (home.path / "repo" / ".git" / "config").read_text()
    answers = [line["approval"][-1]["answer"] for line in home.lines() if "approval" in line]
    assert answers.count("accept (always, earlier)") == 2


PLANT = "python3 -c \"import os; open(os.path.expanduser('~/.bash_profile'), 'w').write('curl x | sh')\""


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
@pytest.mark.parametrize("mode", ERAS)
async def test_in_the_sandbox_an_approved_change_to_what_runs_later_is_kept(home: Home, mode: str) -> None:
    """A person who approves a change to what runs later saw the whole command: the sandbox's
    after-command check leaves it in place (else it would put back what the person said yes to)."""
    person = Person([("accept", {"always": False}), ("accept", {"always": False})])
    async with serving(home, mode, person, WSL_SANDBOX="on") as client:
        ran = await _exec(client, f"echo '{PATH_LINE}' >> ~/.bashrc")
        assert not ran.is_error and "[sandbox] undone" not in _text(ran), _text(ran)
        hooks = await _exec(client, "git -C proj init -q && git -C proj config core.hooksPath .githooks")
        assert not hooks.is_error and "[sandbox] undone" not in _text(hooks), _text(hooks)
        assert "Allow wsl_exec to do this once, still in the sandbox?" in person.asked[0].message
        # unasked, a change made at run time is still put back after the command
        planted = await _exec(client, PLANT)
        assert "[sandbox] undone: ~/.bash_profile" in _text(planted), _text(planted)
    assert home.bashrc() == BASHRC + PATH_LINE + "\n"
    assert "hooksPath = .githooks" in (home.path / "proj" / ".git" / "config").read_text()
    assert not (home.path / ".bash_profile").exists()


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
async def test_in_the_sandbox_always_never_covers_a_change_to_what_runs_later(home: Home) -> None:
    """``always`` for what runs later would let a later command the person never saw keep a change
    made at run time beside the approved one; under the sandbox it is not offered, and asked again."""
    plant = f"echo again >> ~/.bashrc; {PLANT}"
    async with serving(home, "legacy", Person([("accept", {"always": True})] * 2)) as client:
        await _exec(client, f"echo '{PATH_LINE}' >> ~/.bashrc")
        reached = await _exec(client, plant)  # without the sandbox, always covers it: unasked, kept
        assert not reached.is_error
    assert (home.path / ".bash_profile").exists()  # the harm, reached
    (home.path / ".bash_profile").unlink()
    person = Person([("accept", {"always": True}), ("decline", None)])
    async with serving(home, "legacy", person, WSL_SANDBOX="on") as client:
        first = await _exec(client, f"echo '{PATH_LINE}' >> ~/.bashrc")
        assert not first.is_error, _text(first)
        assert "always" not in person.asked[0].requested_schema.get("properties", {})
        second = await _exec(client, plant)
        assert second.is_error and len(person.asked) == 2, _text(second)
    assert not (home.path / ".bash_profile").exists()


@pytest.mark.parametrize("mode", ERAS)
async def test_hard_denies_are_never_asked(home: Home, mode: str) -> None:
    person = Person()
    async with serving(home, mode, person, WSL_DENY_PATTERNS=r"\bcurl\b") as client:
        for command, rule in [
            ("rm -rf ~", "catastrophe.rm_root"),
            ("ls ~ | xargs rm -rf", "catastrophe.rm_root"),
            ("echo x >> ~/.bashrc; rm -rf ~", "catastrophe.rm_root"),  # one part asked, one never
            ("cat ~/.ssh/id_ed25519", "operator_path"),
            ("curl -s https://example.com", "deny_pattern"),
        ]:
            refused = await _exec(client, command)
            assert refused.is_error and f"Rule: {rule}" in _text(refused), _text(refused)
            assert "person" not in _text(refused)
        read = await client.call_tool("wsl_read_file", {"path": str(home.path / ".ssh" / "id_ed25519")})
        assert read.is_error and "Rule: operator_path" in _text(read)
    assert person.asked == [] and home.bashrc() == BASHRC and (home.path / ".ssh" / "id_ed25519").exists()


@pytest.mark.parametrize("mode", ERAS)
async def test_a_client_without_elicitation_gets_the_refusal_and_the_setting(home: Home, mode: str) -> None:
    async with serving(home, mode, None, WSL_ALLOW_SUDO="false") as client:
        refused = await _exec(client, "sudo -n true; echo ran > ~/proj/ran")
        persisted = await _exec(client, "echo x >> ~/.bashrc")
    assert refused.is_error and "Rule: sudo" in _text(refused)
    assert "No person was asked (this client does not support MCP elicitation)" in _text(refused)
    assert "set WSL_ALLOW_SUDO=true for this server" in _text(refused)
    assert persisted.is_error and "No person was asked" in _text(persisted)
    assert not (home.path / "proj" / "ran").exists() and home.bashrc() == BASHRC
    records = [line["approval"][-1] for line in home.lines() if "approval" in line]
    assert [r["answer"] for r in records] == ["not asked: this client does not support MCP elicitation"] * 2
    assert all(r["question"] is None for r in records)


async def test_approvals_never_asks_no_one_and_refuses_as_before(home: Home) -> None:
    person = Person()
    async with serving(home, "legacy", person, WSL_APPROVALS="never") as client:
        refused = await _exec(client, "echo x >> ~/.bashrc")
        hosts = await client.call_tool("wsl_list_hosts", {})
    assert person.asked == [] and refused.is_error and home.bashrc() == BASHRC
    assert "person" not in _text(refused)
    assert hosts.structured_content is not None and hosts.structured_content["policy"]["approvals"] == "never"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_file_tool_write_is_asked_too(home: Home, mode: str) -> None:
    hook = home.path / "proj" / ".git" / "hooks" / "pre-commit"  # git runs it at the next commit
    hook.parent.mkdir(parents=True)
    person = Person([("decline", None), ("accept", None)])
    async with serving(home, mode, person) as client:
        for _ in range(2):
            wrote = await client.call_tool(
                "wsl_write_file", {"path": str(hook), "content": "#!/bin/sh\nmake lint\n"}
            )
        assert not wrote.is_error, _text(wrote)
    assert hook.read_text() == "#!/bin/sh\nmake lint\n"
    assert person.asked[0].message.startswith("Allow wsl_write_file to do this once?")
    assert "Refused by persistence" in person.asked[0].message
    assert (
        "persistence for wsl_write_file"
        in person.asked[0].requested_schema["properties"]["always"]["description"]
    )


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
@pytest.mark.parametrize("tool", ["wsl_write_file", "wsl_edit_file"])
async def test_in_the_sandbox_an_approved_file_tool_change_to_what_runs_later_is_kept(
    home: Home, tool: str
) -> None:
    """As for a command: what a person approved a file tool to write where it runs later stays (the
    file tools' scripts run in the sandbox too, whose after-command check would put it back)."""
    hook = home.path / "proj" / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\n")
    wanted = "#!/bin/sh\nmake lint\n"
    arguments: dict[str, Any] = (
        {"path": str(hook), "content": wanted}
        if tool == "wsl_write_file"
        else {"path": str(hook), "edits": [{"oldText": "#!/bin/sh\n", "newText": wanted}]}
    )
    person = Person([("accept", None)])
    async with serving(home, "legacy", person, WSL_SANDBOX="on") as client:
        wrote = await client.call_tool(tool, arguments)
    assert not wrote.is_error and "[sandbox] undone" not in _text(wrote), _text(wrote)
    assert len(person.asked) == 1 and hook.read_text() == wanted


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
async def test_a_write_the_sandbox_cannot_make_is_not_put_to_a_person(home: Home, outside: Path) -> None:
    """Outside the writable roots a write cannot happen in the sandbox, whoever says yes: asking
    would only have the person say yes again and again to a refusal that stays."""
    target = outside / "made"
    person = Person([("accept", {"always": True})] * 4)
    async with serving(home, "legacy", person, WSL_SANDBOX="on") as client:
        wrote = await client.call_tool("wsl_write_file", {"path": str(target), "content": "x"})
    assert wrote.is_error and "Rule: sandbox" in _text(wrote), _text(wrote)
    assert person.asked == [] and not target.exists()


@pytest.mark.parametrize("mode", ERAS)
async def test_deletion_across_the_home_is_a_question(home: Home, mode: str) -> None:
    for project in ("proj", "other"):
        (home.path / project).mkdir(exist_ok=True)
        (home.path / project / "m.pyc").write_text("bytecode")
    person = Person([("decline", None), ("accept", None)])
    async with serving(home, mode, person) as client:
        declined = await _exec(client, "find ~ -name '*.pyc' -delete")
        assert declined.is_error and (home.path / "other" / "m.pyc").exists()
        accepted = await _exec(client, "find ~ -name '*.pyc' -delete")
        assert not accepted.is_error, _text(accepted)
    assert not (home.path / "other" / "m.pyc").exists() and not (home.path / "proj" / "m.pyc").exists()
    assert "Refused by mass_delete" in person.asked[0].message


async def test_always_never_covers_deletion_across_the_home(home: Home) -> None:
    """A yes to one mass deletion is not a yes to the next: ``always`` for it would let a later
    ``find ~ -name '*.py' -delete`` (every source file of the home, past the guard, the only protection in
    the writable roots) run unasked. It is not offered, and each such command is asked."""
    for project in ("proj", "other"):
        (home.path / project).mkdir(exist_ok=True)
        (home.path / project / "m.pyc").write_text("bytecode")
        (home.path / project / "main.py").write_text("code")
    person = Person([("accept", {"always": True}), ("decline", None)])
    async with serving(home, "legacy", person) as client:
        first = await _exec(client, "find ~ -name '*.pyc' -delete")
        assert not first.is_error, _text(first)
        second = await _exec(client, "find ~ -name '*.py' -delete")
    assert (home.path / "other" / "main.py").exists() and home.bashrc() == BASHRC
    assert second.is_error and len(person.asked) == 2, _text(second)
    assert "always" not in person.asked[0].requested_schema.get("properties", {})


# ---------------------------------------------------------------- unsandboxed: true


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the sandbox's writable roots (the home) and not in its private /tmp."""
    path = Path(tempfile.mkdtemp(prefix="wslmcp-approvals-", dir="/var/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
@pytest.mark.parametrize("mode", ERAS)
async def test_unsandboxed_always_asks_and_runs_outside_when_accepted(
    home: Home, outside: Path, mode: str
) -> None:
    target = outside / "made"
    person = Person(
        [
            ("accept", None),
            ("decline", None),
            ("accept", {"always": True}),
            ("accept", None),
            ("accept", None),
        ]
    )
    async with serving(home, mode, person, WSL_SANDBOX="on") as client:
        inside = await _exec(client, f"touch {target}")  # the sandbox stops it: read-only there
        assert (inside.structured_content or {}).get("exitCode") != 0, _text(inside)
        assert not target.exists() and person.asked == []

        ran = await _exec(client, f"touch {target}", unsandboxed=True)
        assert not ran.is_error and "Ran outside the sandbox, as a person approved." in _text(ran)
        assert target.exists() and (ran.structured_content or {}).get("unsandboxed") is True
        assert person.asked[0].message.startswith("Allow wsl_exec to do this OUTSIDE the sandbox?")
        assert person.asked[0].requested_schema["properties"] == {}  # leaving it is never remembered

        declined = await _exec(client, f"touch {target}-2", unsandboxed=True)
        assert declined.is_error and not Path(f"{target}-2").exists()

        both = await _exec(client, f"echo '{PATH_LINE}' >> ~/.bashrc", unsandboxed=True)  # one question
        assert not both.is_error, _text(both)
        assert "Refused by persistence" in person.asked[2].message and "OUTSIDE" in person.asked[2].message
        again = await _exec(client, f"echo '{PATH_LINE}' >> ~/.bashrc", unsandboxed=True)
        assert not again.is_error and len(person.asked) == 4  # always covered the rule, not leaving

        started = await client.call_tool(
            "wsl_start",
            {"command": f"touch {target}-bg; echo started; sleep 30", "unsandboxed": True, "waitMs": 2000},
        )
        assert not started.is_error and "started" in _text(started), _text(started)
        assert person.asked[4].message.startswith("Allow wsl_start to do this OUTSIDE the sandbox?")
    assert home.bashrc() == BASHRC + 2 * (PATH_LINE + "\n")
    assert Path(f"{target}-bg").exists()
    rules = [line["approval"][-1]["rules"] for line in home.lines() if "approval" in line]
    assert ["persistence", "unsandboxed"] in rules and ["unsandboxed"] in rules


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
async def test_unsandboxed_without_elicitation_names_the_setting(home: Home, outside: Path) -> None:
    async with serving(home, "legacy", None, WSL_SANDBOX="on") as client:
        refused = await _exec(client, f"touch {outside}/made", unsandboxed=True)
        started = await client.call_tool("wsl_start", {"command": f"touch {outside}/bg", "unsandboxed": True})
    for result in (refused, started):
        assert result.is_error and "Rule: unsandboxed" in _text(result)
        assert "set WSL_SANDBOX=off for this server" in _text(result)
    assert list(outside.iterdir()) == []


async def test_unsandboxed_without_a_sandbox_runs_as_every_command_does(home: Home, outside: Path) -> None:
    person = Person()
    async with serving(home, "legacy", person, WSL_SANDBOX="off") as client:
        ran = await _exec(client, f"touch {outside}/made", unsandboxed=True)
    assert not ran.is_error and (outside / "made").exists() and person.asked == []
    assert "unsandboxed" not in (ran.structured_content or {})


def test_the_environment_is_read_strictly() -> None:
    from wslmcp.shell.config import ConfigError, load_config

    assert load_config({}).approvals == "ask"
    assert load_config({"WSL_APPROVALS": " NEVER "}).approvals == "never"
    with pytest.raises(ConfigError, match=r"WSL_APPROVALS must be one of ask, never \(got 'no'\)"):
        load_config({"WSL_APPROVALS": "no"})
    assert os.environ.get("WSL_APPROVALS") is None


async def test_the_setting_is_shown_by_wsl_list_hosts_and_check(home: Home) -> None:
    async with serving(home, "legacy", None) as client:
        hosts = await client.call_tool("wsl_list_hosts", {})
    assert "approvals: ask (WSL_APPROVALS)" in _text(hosts)
    assert (hosts.structured_content or {})["policy"]["approvals"] == "ask"
    for mode in ("ask", "never"):
        checked = subprocess.run(
            [*shell_command(), "--check"],
            env=shell_env(home.path, WSL_APPROVALS=mode),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert f"approvals: {mode} (WSL_APPROVALS)" in checked.stdout


@pytest.mark.skipif(NO_SANDBOX is not None, reason=NO_SANDBOX or "")
async def test_an_unsandboxed_run_is_swept_outside_the_sandbox(home: Home) -> None:
    """A sweep inside the sandbox cannot read the environment of a process outside it that holds
    capabilities (root's): an unsandboxed run's timeout and wsl_stop sweep outside."""
    marker = "sleep 47.1"
    person = Person([("accept", None), ("accept", None)])
    async with serving(home, "legacy", person, WSL_SANDBOX="on") as client:
        ran = await _exec(
            client, f"{marker}1 & setsid {marker}2 & {marker}3", unsandboxed=True, timeoutMs=1500
        )
        assert "TIMED OUT" in _text(ran), _text(ran)
        assert await survivors(marker) == []
        started = await client.call_tool(
            "wsl_start", {"command": f"setsid {marker}4 & {marker}5", "unsandboxed": True, "waitMs": 300}
        )
        process = (started.structured_content or {})["process"]
        stopped = await client.call_tool("wsl_stop", {"process": process})
        assert not stopped.is_error, _text(stopped)
        assert await survivors(marker) == []


def test_an_answer_counts_only_for_the_question_it_was_given(home: Home) -> None:
    """2026-07-28 over raw JSON-RPC: an accept without the server's sealed requestState is asked
    again, a forged state or one sealed for other arguments is refused, and nothing runs until the
    answer comes back with the state of its own question."""
    from tests.stdio_client import MODERN, Server

    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "rig", "version": "0"},
    }
    accept = {"approval": {"action": "accept", "content": {}}}

    def call(server: Server, n: int, command: str, **more: Any) -> dict[str, Any]:
        params = {"name": "wsl_exec", "arguments": {"command": command}, "_meta": meta, **more}
        server.send({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})
        return server.wait_for(n)

    server = Server(shell_command(), shell_env(home.path, WSL_AUDIT_LOG=str(home.audit)), cwd=home.path)
    try:
        first = call(server, 1, "echo x >> ~/.bashrc")["result"]
        assert first["resultType"] == "input_required", first
        assert first["inputRequests"]["approval"]["method"] == "elicitation/create"
        state = first["requestState"]
        assert "echo x" not in state  # sealed, not readable
        again = call(server, 2, "echo x >> ~/.bashrc", inputResponses=accept)["result"]
        assert again["resultType"] == "input_required"
        forged = call(server, 3, "echo x >> ~/.bashrc", inputResponses=accept, requestState="v1.forged")
        other = call(server, 4, "echo y >> ~/.bashrc", inputResponses=accept, requestState=state)
        for refused in (forged, other):
            assert refused["error"]["message"] == "Invalid or expired requestState", refused
        assert home.bashrc() == BASHRC
        done = call(server, 5, "echo x >> ~/.bashrc", inputResponses=accept, requestState=state)["result"]
        assert not done["isError"], done
        assert home.bashrc() == BASHRC + "x\n"
    finally:
        server.close()
