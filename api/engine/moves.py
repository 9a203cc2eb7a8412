"""What a seat may do now: `legal_moves` and `playable`, for both phases."""

from __future__ import annotations

from .cards import Card, sorted_cards
from .rules import legal_plays, playable_cards
from .state import Revoke, TableState


def can_pass(state: TableState, seat: int) -> bool:
    rnd = state.round
    return rnd is not None and rnd.is_passing and rnd.passes[seat] is None


def legal_moves(state: TableState, seat: int) -> tuple[Card, ...]:
    """The cards that break no rule: to pass (while passing), or to play (on this seat's turn)."""
    rnd = state.round
    if rnd is None:
        return ()
    # While passing, a seat's legal moves are its hand until it has passed.
    if rnd.is_passing:
        return sorted_cards(rnd.hands[seat]) if rnd.passes[seat] is None else ()
    if state.turn != seat:
        return ()
    return sorted_cards(legal_plays(rnd, seat))


def playable(state: TableState, seat: int) -> tuple[Card, ...]:
    """The legal moves, plus the revoking cards when the table allows revokes (humans only)."""
    rnd = state.round
    revoke_allowed = state.options.revoke is Revoke.ALLOWED and state.seats[seat].is_human
    if rnd is None or rnd.is_passing or state.turn != seat or not revoke_allowed:
        return legal_moves(state, seat)
    return sorted_cards(playable_cards(rnd, seat, revoke_allowed=True))
