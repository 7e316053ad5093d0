"""The games tests' fixtures: every ledger verifies after each test; tables made over HTTP."""

from tests.games.conftest import every_ledger_verifies, make_table  # noqa: F401
