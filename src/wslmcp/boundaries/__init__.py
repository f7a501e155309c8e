"""External boundaries: one module per boundary, each an interface (a Protocol) with its real adapter(s).

The recorded-fixture twin of each boundary lives in the top-level ``fakes`` package; wiring
(``wslmcp.wiring``) is the one place that chooses between them.
"""
