"""The browser of the browser tests: Debian's chromium under Playwright, one launch per test module.

Not once per run: while Playwright's sync API is open its event loop runs in the main thread, and the
tests after these that call ``asyncio.run`` would fail.

Also a live server per test module (``server``) and pages in browser contexts of their own
(``new_page``). A module may set ``VIEWPORT`` (its pages' default size, else PHONE) and ``TIMEOUT_MS``
(Playwright's default timeout, else 15 s)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.client.browser_helpers import PHONE, live_server, require_chromium

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    playwright_sync = pytest.importorskip("playwright.sync_api")
    executable = require_chromium()
    with playwright_sync.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server (web process, its own database) for the module's tests."""
    with live_server(tmp_path_factory.mktemp("server")) as url:
        yield url


@pytest.fixture
def new_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """Pages in browser contexts of their own (separate storage: separate players), English unless asked.
    A page's uncaught error fails the test."""
    default_viewport = getattr(request.module, "VIEWPORT", PHONE)
    timeout = getattr(request.module, "TIMEOUT_MS", TIMEOUT_MS)
    contexts: list[Any] = []
    errors: list[str] = []

    def make(viewport: dict[str, int] | None = None, locale: str = "en-GB") -> Any:
        context = browser.new_context(viewport=viewport or default_viewport, locale=locale)
        context.set_default_timeout(timeout)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, errors
