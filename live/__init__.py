"""What a waiting client holds open: the game's event stream, ``/me/stream`` and the long-poll.

These endpoints stand above everything a move touches (they resolve a passed deadline through the
play pipeline and read the table's chat from the lobby); they only read and wait, woken through the
notification channel of :mod:`streams.channels`.
"""
