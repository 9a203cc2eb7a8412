"""Positions for the hint tests, in card notation, and the hint a seat gets there."""

from __future__ import annotations

import random

from api.engine.bots.view import BotView, bot_view
from api.engine.hints import Hint, suggest
from api.engine.rule_set import RuleSet, resolve
from api.engine.state import TableState

from tests.engine.scenario import pass_cards, plays, table
from tests.engine.test_rule_set_scenarios import plays as rule_set_plays
from tests.engine.test_rule_set_scenarios import table as rule_set_table

# Round 1 (passing left). Seat 0: the ace and king of spades and no low spade.
HIGH_SPADES_UNGUARDED = (
    "AS KS 2C 3C 4C 5C 6D 7D 8D 9H TH 2H 3H",
    "AC 6C 7C 8C 2D 3D 4D 5D 2S 3S 4S 4H 5H",
    "9C TC JC QC KC QD KD 9S 5S 6S 7S 6H 7H",
    "9D TD JD AD 8S TS JS QS 8H JH QH KH AH",
)

# Round 4 (no pass). Seat 1 wins trick 1 with AC and leads spades and diamonds later.
SPADES_AND_DIAMONDS = (
    "2C 9D QD 2S 3S 4S 5S 6S 2H 3H 4H 5H 6H",
    "AC 3C 4C JD 2D 3D 4D 7S 8S 9S 7H 8H 9H",
    "5C 6C 7C 8C 5D 6D 7D 8D TS JS TH JH QH",
    "9C TC JC QC KC TD KD AD QS KS AS KH AH",
)

# Round 4 (no pass). Seat 1 runs the clubs and takes QS and three hearts: 16 points, all so far.
MOON_RUN = (
    "2C 3C 4C 5C 6C 7C 8C 9C 9D KD 2H 3H 4H",
    "AC KC QC JC AD QD JD TD AH KH QH JH TH",
    "5H 6H 7H 8H 9H 2S 3S 4S 5S 6S 7S 8S 9S",
    "TC 2D 3D 4D 5D 6D 7D 8D TS JS QS KS AS",
)
MOON_TRICKS = "2C AC 2S TC  KC 5H 2D 3C  QC 6H 3D 4C  JC 7H QS 5C"


def position(hands: tuple[str, ...], moves: str = "", *, round_number: int = 4, passes: dict[int, str] | None = None) -> TableState:
    """The table dealt `hands` (seat 0 first), after these passes and plays in turn order."""
    state = table(*hands, round=round_number)
    for seat, text in (passes or {}).items():
        state = pass_cards(state, seat, text)
    return plays(state, moves) if moves.strip() else state


def view_of(state: TableState, seat: int | None = None) -> BotView:
    """What the seat on turn (or `seat`) sees."""
    chosen = state.awaiting[0] if seat is None else seat
    view = bot_view(state, chosen)
    assert view is not None, f"seat {chosen} has nothing to do"
    return view


def hint_at(state: TableState, seat: int | None = None, seed: int = 1) -> Hint:
    """The hint, with the search on its fixed budget (no clock), so it is reproducible."""
    return suggest(view_of(state, seat), random.Random(seed), seconds=None)


def tips(hint_or_reasons: Hint | tuple) -> list[str]:  # type: ignore[type-arg]
    reasons = hint_or_reasons.reasons if isinstance(hint_or_reasons, Hint) else hint_or_reasons
    return [reason.tip for reason in reasons]

# Round 4. Seat 1 has taken every point (16) when it leads JD; seat 3 beats it with KD and
# seat 0, void in diamonds, can keep the trick's heart away from seat 1.
MOON_STOPPABLE = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC 2H 3H 4H AS",
    "AC KC QC JC AD QD JD TD AH KH QH JH TH",
    "5H 6H 7H 8H 9H 2S 3S 4S 5S 6S 7S 8S 9S",
    "2D 3D 4D 5D 6D 7D 8D 9D KD TS JS QS KS",
)
MOON_STOPPABLE_TRICKS = "2C AC 2S 2D  KC 5H 3D 3C  QC 6H 4D 4C  JC 7H QS 5C"


def position_in(rules: RuleSet, hands: tuple[str, ...], moves: str = "", *, scores: tuple[int, ...] | None = None) -> TableState:
    """A table of `rules` dealt `hands` (one per seat, the rule set's deck) at round 1, after these plays in turn order."""
    state = rule_set_table(rules, hands, scores=scores)
    return rule_set_plays(state, moves) if moves.strip() else state


def no_pass(**options: object) -> RuleSet:
    """The rule set of these options (and a game's), with no pass, so tricks start at once."""
    return resolve({"pass_cycle": "none", **options})
