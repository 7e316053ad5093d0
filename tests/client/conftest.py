"""The browser the browser tests share: Debian's chromium under Playwright, launched once per run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.client.browser_helpers import require_chromium


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    playwright_sync = pytest.importorskip("playwright.sync_api")
    executable = require_chromium()
    with playwright_sync.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()
