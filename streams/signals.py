"""What the streams app tells the apps above it, which it may not import: each written batch of
notifications (in its transaction, with the seats whose players are loaded). The notify app listens
and sends them on where a player is reachable outside the service."""

from django.dispatch import Signal

#: Sent with ``notifications`` (saved rows) and ``seats`` (loaded seats, players included; may be empty).
notifications_written = Signal()
