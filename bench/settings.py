"""Settings of the server the HTTP benchmark starts: the product's, with ``bench.urls`` routing the
floor endpoint next to the product's routes."""

from maumau.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
