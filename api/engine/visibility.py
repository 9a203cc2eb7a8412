"""What a viewer may see of a deal and of a pass: the one place that decides it.

Views, event redaction, the audit record and the bots' view all ask here,
for every rule set:
- a dealt hand: its own seat's, always; every seat's once that round has ended;
- the salt of a deal: once that round has ended;
- a pass: the seat that passed it; the seat that received it, once the cards
  have moved; everybody once that round has ended.
A round has ended once it is in the match's history (however it ended), and
every round of a finished match has ended: after a match every card of it is
public.
"""

from __future__ import annotations

from .rules import receiver_of
from .state import Round, TableState
from .viewers import Viewer


def is_round_over(state: TableState, match_number: int, round_number: int) -> bool:
    """Has round `round_number` of match `match_number` ended (so its deal is public)?"""
    match = state.match
    if match is None or match_number < match.number:
        return True
    if match.result is not None:
        return True
    current = match.round
    return current is None or round_number < current.number


def may_see_hand(state: TableState, viewer: Viewer, match_number: int, round_number: int, seat: int) -> bool:
    return seat == viewer.seat or is_round_over(state, match_number, round_number)


def may_see_salt(state: TableState, match_number: int, round_number: int) -> bool:
    return is_round_over(state, match_number, round_number)


def may_see_pass(state: TableState, viewer: Viewer, match_number: int, round_number: int, giver: int) -> bool:
    if giver == viewer.seat or is_round_over(state, match_number, round_number):
        return True
    # The receiver learns what it got once the cards have moved.
    rnd = _running(state, match_number, round_number)
    return (
        viewer.seat is not None
        and rnd is not None
        and rnd.exchanged
        and receiver_of(giver, rnd.direction, rnd.rules.players) == viewer.seat
    )


def received_by(rnd: Round, seat: int) -> tuple[str, ...] | None:
    """What `seat` received in `rnd`: known to it once the cards have moved (None before, or without a pass)."""
    if not rnd.exchanged:
        return None
    for giver, cards in enumerate(rnd.passes):
        if cards is not None and giver != seat and receiver_of(giver, rnd.direction, rnd.rules.players) == seat:
            return cards
    return None


def _running(state: TableState, match_number: int, round_number: int) -> Round | None:
    match = state.match
    rnd = state.round
    if match is None or rnd is None or match.number != match_number or rnd.number != round_number:
        return None
    return rnd
