"""What a bot may know: exactly its own seat's knowledge, nothing more.

`bot_view` reads the state on the bot's behalf and keeps only what that seat
has seen: its hand, the cards it passed and received, and the public plays of
the round (every card was played face up). A bot never sees the state itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import Card, sorted_cards
from ..moves import legal_moves
from ..rule_set import RuleSet
from ..state import Direction, TableState, Trick
from ..visibility import received_by


@dataclass(frozen=True)
class BotView:
    seat: int
    phase: str  # "pass", "play" or "moon" (the shooter chooses how its moon is paid)
    hand: tuple[Card, ...]
    legal: tuple[Card, ...]  # the engine's own legal moves
    direction: Direction
    trick: Trick  # the trick being played
    tricks: tuple[Trick, ...]  # the completed tricks of this round
    passed: tuple[Card, ...] | None  # what this seat passed
    received: tuple[Card, ...] | None  # what this seat received (after the exchange)
    taken: tuple[int, ...]  # points taken so far this round, per seat
    scores: tuple[int, ...]  # match scores before this round
    hearts_broken: bool
    target_score: int
    rules: RuleSet  # the table's rule set (public)


def bot_view(state: TableState, seat: int) -> BotView | None:
    """The view of a seat that must act now, or None when it has nothing to do."""
    rnd = state.round
    legal = legal_moves(state, seat)
    match = state.match
    choosing = rnd is not None and rnd.moon_choice == seat
    if rnd is None or match is None or not (legal or choosing):
        return None
    return BotView(
        seat=seat,
        phase="moon" if choosing else "pass" if rnd.is_passing else "play",
        hand=sorted_cards(rnd.hands[seat]),
        legal=legal,
        direction=rnd.direction,
        trick=rnd.trick,
        tricks=rnd.tricks,
        passed=rnd.passes[seat],
        received=received_by(rnd, seat),
        taken=rnd.taken,
        scores=match.scores,
        hearts_broken=rnd.hearts_broken,
        target_score=state.options.target_score,
        rules=state.options,
    )
