"""The replay layer: each area's scenario check, run by ``wslmcp scenario replay``.

A check gets its boundaries and host from ``wiring.replaying`` (the scenario's twins, the host it
states and a clock it may move on), assembles the area as its entry point would, and drives it the
same way for every server: in process, through the SDK's client session connected to the server
instance over memory streams (``replay.client``). This is the only code besides the entry points
that imports ``wiring`` or the twins.
"""
