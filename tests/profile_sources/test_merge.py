"""Scope-precedence merging (mcp-top §3.1) as properties over arbitrary layer sequences."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.profile.configs.merge import ServerMerger
from wslmcp.profile.model import SCOPE_PRECEDENCE, ConfiguredServer

entries = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]), st.sampled_from(["user", "project", "user-project"]), st.booleans()
    ),
    max_size=12,
)


def _server(i: int, name: str, scope: str, enabled: bool) -> ConfiguredServer:
    return ConfiguredServer(
        cli="claude-code",
        name=name,
        scope=scope,
        source_path=f"/cfg/{i}",
        transport="stdio",  # type: ignore[arg-type]
        enabled=enabled,
    )


@settings(max_examples=examples(150), deadline=None)
@given(entries)
def test_merge_invariants(seq: list[tuple[str, str, bool]]) -> None:
    merger = ServerMerger()
    for i, (name, scope, enabled) in enumerate(seq):
        merger.add(_server(i, name, scope, enabled))
    servers = merger.servers()
    # first-seen order of names
    assert [s.name for s in servers] == list(dict.fromkeys(n for n, _, _ in seq))
    for winner in servers:
        defs = [(i, sc) for i, (n, sc, _) in enumerate(seq) if n == winner.name]
        top = max(SCOPE_PRECEDENCE[sc] for _, sc in defs)
        # the winner is the last definition among those of the highest precedence
        assert winner.precedence == top
        assert winner.source_path == f"/cfg/{max(i for i, sc in defs if SCOPE_PRECEDENCE[sc] == top)}"
        # the chain holds other definitions only, lower precedence, highest first
        chain = [SCOPE_PRECEDENCE[s.scope] for s in winner.shadowed]
        assert chain == sorted(chain, reverse=True) and all(p < top for p in chain)
        assert {s.source_path for s in winner.shadowed} <= {f"/cfg/{i}" for i, _ in defs} - {
            winner.source_path
        }
    # one warning per same-or-higher redefinition, none for lower ones arriving later
    expected = 0
    best: dict[str, int] = {}
    for name, scope, _ in seq:
        p = SCOPE_PRECEDENCE[scope]
        if name in best and p >= best[name]:
            expected += 1
        best[name] = max(best.get(name, -1), p)
    assert len(merger.warnings) == expected
