"""What of the event log a viewer may see now.

Every event stays listed; only hidden fields are withheld (`None`):
- a deal: the other seats' hands and the salt, until that round ends;
- a pass: its cards, until the round ends, except to the seat that passed
  and, once the cards have moved, to the seat that received them.
After a match is finished, every card of it is public.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .events import PassChosen, Recorded, RoundDealt
from .rules import receiver_of
from .state import TableState, evolved
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


def visible_event(state: TableState, recorded: Recorded, viewer: Viewer) -> Recorded:
    """The event as `viewer` may see it, given the current state of the table."""
    event = recorded.event
    if isinstance(event, RoundDealt):
        if is_round_over(state, event.match, event.round):
            return recorded
        hands = tuple(hand if seat == viewer.seat else None for seat, hand in enumerate(event.hands))
        return Recorded(recorded.seq, recorded.at, evolved(event, hands=hands, salt=None))
    if isinstance(event, PassChosen):
        if is_round_over(state, event.match, event.round) or event.seat == viewer.seat:
            return recorded
        rnd = state.round
        if viewer.seat is not None and rnd is not None and rnd.exchanged and rnd.number == event.round:
            if receiver_of(event.seat, rnd.direction) == viewer.seat:
                return recorded
        return Recorded(recorded.seq, recorded.at, evolved(event, cards=None))
    return recorded


def visible_events(state: TableState, stream: Iterable[Recorded], viewer: Viewer) -> Iterator[Recorded]:
    for recorded in stream:
        yield visible_event(state, recorded, viewer)
