"""Where a rule set changes what a bot should play, in card notation.

Each position is reached through the engine; the same position under
another rule set (the view's `rules` swapped) shows the card that rule set
would have the bot play instead.
"""

from __future__ import annotations

import random
from dataclasses import replace

from api.engine.bots import basic, strong
from api.engine.bots.view import BotView, bot_view
from api.engine.rule_set import RuleSet
from api.engine.state import TableState
from tests.engine.test_rule_set_scenarios import no_pass, plays, table

STRONG = strong.StrongPolicy(budget=20_000)

QUEEN_GONE = (
    "AC 2D AD 9S TS JS KS 8H TH JH QH KH AH",  # seat 0
    "2C 3D 8C 9C TC JC QC KC TD JD QD KD 8S",  # seat 1: leads trick 1 (the dealer's left)
    "QS 4D 5D 6D 7D 8D 9D 2S 3S 4S 5S 6S 7S",  # seat 2: no clubs, sheds QS on trick 1
    "3C 4C 5C 6C 7C AS 9H 2H 3H 4H 5H 6H 7H",  # seat 3: no diamonds
)
JACK_LAST = (
    "2C 5D 6C 7C 8C 9C TC 2S 3S 4S 5S 6S 7S",  # seat 0
    "3C TD JC QC KC 8S 9S TS JS QS KS AS 2H",  # seat 1
    "4C JD 2D 4D 6D 7D 8D 9D 3H 4H 5H 6H 7H",  # seat 2: last to play on trick 2
    "AC 3D 5C QD KD AD 8H 9H TH JH QH KH AH",  # seat 3: takes trick 1, leads 3D
)
PARTNER_RUN = (
    "2C 4D KS 3S 5C 6C 2D 5D 2S 4S 3H 4H 5H",  # seat 0: seat 2's partner
    "3C QS 7C 8C 5S 6S 7S 6H 7H 8H 9H TH JH",  # seat 1: no diamonds
    "AC AD TS 9C TC 6D 7D 8D 8S 9S JS AS QH",  # seat 2: takes tricks 1 and 2 (and QS)
    "4C 3D 2H JC QC KC 9D TD JD QD KD KH AH",  # seat 3: no spades
)


def view_at(state: TableState) -> BotView:
    view = bot_view(state, state.turn)
    assert view is not None
    return view


def under(view: BotView, rules: RuleSet) -> BotView:
    """The same position, read under another rule set."""
    return replace(view, rules=rules, target_score=rules.target_score)


def test_in_black_maria_a_void_seat_sheds_the_ace_of_spades_even_after_the_queen_is_gone() -> None:
    maria = no_pass(game="black_maria")
    # Trick 1: seat 1 leads 2C, seat 2 sheds QS, seat 0 takes it with AC; seat 0 leads 2D and seat 3 has none.
    view = view_at(plays(table(maria, QUEEN_GONE), "2C QS 3C AC 2D 3D 4D"))
    assert view.seat == 3
    assert basic.choose_play(view, random.Random(0)) == "AS"  # 7 points
    assert STRONG.choose_play(view, random.Random(0)) == "AS"
    # In classic the ace scores nothing once the queen is gone: the highest heart goes.
    assert basic.choose_play(under(view, no_pass()), random.Random(0)) == "9H"


def test_in_omnibus_the_last_seat_takes_the_jack_of_diamonds_home_rather_than_ducking() -> None:
    omnibus = no_pass(game="omnibus")
    view = view_at(plays(table(omnibus, JACK_LAST), "2C 3C 4C AC 3D 5D TD"))
    assert view.seat == 2
    assert basic.choose_play(view, random.Random(0)) == "JD"  # -10 for a trick of no points
    assert STRONG.choose_play(view, random.Random(0)) == "JD"
    # In classic JD is a diamond like any other: duck under TD with the highest that ducks.
    assert basic.choose_play(under(view, no_pass()), random.Random(0)) == "9D"


def test_with_partnerships_a_seat_does_not_stop_its_partners_moon() -> None:
    teams = no_pass(partnerships=True)
    # Seat 2 takes trick 1 and QS on trick 2, then leads TS; seat 3 sheds a heart on it.
    view = view_at(plays(table(teams, PARTNER_RUN), "2C 3C AC 4C AD 3D 4D QS TS 2H"))
    assert view.seat == 0
    assert basic.choose_play(view, random.Random(0)) == "4S"  # duck: the partner may keep the trick
    # Alone, seat 0 would take the trick from the seat that holds every point so far.
    assert basic.choose_play(under(view, no_pass()), random.Random(0)) == "KS"
