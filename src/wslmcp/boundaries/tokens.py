"""Run tokens as a boundary: the marks the shell runner puts on every process it starts.

Contract
--------
``TokenSource.next()``  a fresh token: 16 lowercase hex digits, never repeated within one source.
                        The runner puts it in the command's environment and later kills every
                        process that carries it, so two runs must never share one.

``RandomTokens`` draws them from ``secrets``. A replayed scenario needs the tokens it was recorded
with (they are part of the recorded wsl.exe argument vectors): ``wslmcp.fakes.tokens.CountingTokens``.
"""

from __future__ import annotations

from typing import Protocol


class TokenSource(Protocol):
    def next(self) -> str: ...


class RandomTokens:
    def next(self) -> str:
        import secrets  # at first use: it costs a fresh process the startup of hmac and OpenSSL

        return secrets.token_hex(8)
