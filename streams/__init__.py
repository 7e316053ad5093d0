"""A consumer of a move: the notifications it causes, the wake-up channel that tells waiting clients,
and signed webhooks. The waiting endpoints themselves are the live app's (:mod:`live`).
"""
