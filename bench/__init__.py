"""Benchmarks: scripts that print JSON figures, run as ``python -m bench.<name>`` (each module's
docstring says what it measures and how). They sit outside the product: nothing in ``games``,
``scoring``, ``streams`` or ``maumau`` imports them, and the HTTP benchmark's floor endpoint is
routed only by ``bench.settings``.
"""
