"""The browser of the browser tests: Debian's chromium under Playwright, one launch per test module.

Not once per run: while Playwright's sync API is open its event loop runs in the main thread, and the
tests after these that call ``asyncio.run`` would fail."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.client.browser_helpers import require_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    playwright_sync = pytest.importorskip("playwright.sync_api")
    executable = require_chromium()
    with playwright_sync.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()
