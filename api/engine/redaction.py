"""What of the event log a viewer may see now.

Every event stays listed; only hidden fields are withheld (`None`), as
`api.engine.visibility` decides: a deal's other hands and salt until that
round ends; a pass's cards except to the seat that passed, to the receiver
once the cards have moved, and to everyone once the round ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .events import PassChosen, Recorded, RoundDealt
from .state import TableState, evolved
from .viewers import Viewer
from .visibility import is_round_over, may_see_hand, may_see_pass, may_see_salt

__all__ = ["is_round_over", "visible_event", "visible_events"]


def visible_event(state: TableState, recorded: Recorded, viewer: Viewer) -> Recorded:
    """The event as `viewer` may see it, given the current state of the table."""
    event = recorded.event
    if isinstance(event, RoundDealt):
        if may_see_salt(state, event.match, event.round):
            return recorded
        hands = tuple(
            hand if may_see_hand(state, viewer, event.match, event.round, seat) else None
            for seat, hand in enumerate(event.hands)
        )
        return Recorded(recorded.seq, recorded.at, evolved(event, hands=hands, salt=None))
    if isinstance(event, PassChosen):
        if may_see_pass(state, viewer, event.match, event.round, event.seat):
            return recorded
        return Recorded(recorded.seq, recorded.at, evolved(event, cards=None))
    return recorded


def visible_events(state: TableState, stream: Iterable[Recorded], viewer: Viewer) -> Iterator[Recorded]:
    for recorded in stream:
        yield visible_event(state, recorded, viewer)
