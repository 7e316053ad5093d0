"""Reaching players who are not looking: Web Push, native push (FCM, APNs) and e-mail."""
