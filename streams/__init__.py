"""Asynchronous play: long-poll, server-sent event streams, notifications and signed webhooks.

Waiting clients are served from the ASGI path (async views) and woken through a notification
channel (:mod:`streams.channels`); moves stay on the ordinary sync path and only publish.
"""
