"""CSV for spreadsheets: cells a spreadsheet would run as a formula are written as text.

A player's or league's name is chosen by a client; a cell beginning with `=`, `+`, `-`, `@`, a tab or a
carriage return is read as a formula by Excel, LibreOffice and Google Sheets when the export is opened.
OWASP's rule (CSV injection) is applied to every text cell: such a cell is prefixed with a single quote,
which the spreadsheet shows as text. Our own few lines, not `defusedcsv`: that library leaves a cell
beginning with a tab or a carriage return as it is and rewrites `|` inside escaped cells.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any, TextIO

#: What a spreadsheet takes for the start of a formula (OWASP, CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A text cell that begins like a formula, with a leading single quote; anything else as it is
    (numbers are written by the csv module and never begin with one of these: ours are not negative)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class SafeWriter:
    """`csv.writer` whose text cells are escaped with :func:`csv_cell`."""

    def __init__(self, out: TextIO) -> None:
        self.writer = csv.writer(out)

    def writerow(self, row: Iterable[Any]) -> None:
        self.writer.writerow([csv_cell(value) for value in row])
