"""The state of a table as immutable values, rebuilt by replaying its events.

Nothing here is stored as truth: `api.engine.evolve` derives every field from
the event stream. Derived facts (status, whose turn, who is awaited) are
properties, so they can never disagree with the data they come from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from .cards import Card
from .rule_set import CLASSIC, Direction, Revoke, RuleSet, Tie

SEATS = CLASSIC.seats  # a classic table's seats; a table's own are `options.seats`
NO_POINTS = CLASSIC.no_points
Options = RuleSet  # the table's options are its rule set


class Status(StrEnum):
    WAITING = "waiting"  # seats are being filled
    PASSING = "passing"  # seats are choosing three cards to pass
    PLAYING = "playing"  # tricks are being played
    FINISHED = "finished"  # the match has a result


class SeatKind(StrEnum):
    HUMAN = "human"
    BOT = "bot"
    EMPTY = "empty"


class EndReason(StrEnum):
    TARGET = "target"
    RESIGN = "resign"
    ABANDON = "abandon"


DECK_DESIGNS = ("classic", "four-color", "large-index", "minimal")
BOT_LEVELS = ("basic", "strong")


def evolved(value: Any, **changes: Any) -> Any:
    """A copy of a frozen dataclass with some fields changed.

    The same as `dataclasses.replace` for these plain value classes (no
    `__post_init__`, no init-only fields), about five times faster: replaying
    a long match calls it thousands of times.
    """
    copy = _new(value.__class__)
    fields = value.__dict__.copy()
    fields.update(changes)
    _set_attribute(copy, "__dict__", fields)
    return copy


_new = object.__new__
_set_attribute = object.__setattr__  # frozen dataclasses refuse their own __setattr__


@dataclass(frozen=True)
class Seat:
    kind: SeatKind = SeatKind.EMPTY
    name: str | None = None
    deck_design: str = "classic"
    bot_level: str | None = None

    @property
    def is_empty(self) -> bool:
        return self.kind is SeatKind.EMPTY

    @property
    def is_bot(self) -> bool:
        return self.kind is SeatKind.BOT

    @property
    def is_human(self) -> bool:
        return self.kind is SeatKind.HUMAN


@dataclass(frozen=True)
class Spectator:
    number: int  # 1, 2, ... in joining order
    name: str
    deck_design: str = "classic"


@dataclass(frozen=True)
class Trick:
    number: int  # 1..13 (1..17 with three players, 1..10 with five)
    leader: int
    cards: tuple[tuple[int, Card], ...] = ()
    winner: int | None = None  # set when every seat's card is down

    @property
    def led_suit(self) -> str | None:
        return self.cards[0][1][1] if self.cards else None


@dataclass(frozen=True)
class Round:
    """One deal: the pass, then the tricks (13 with four players)."""

    number: int  # 1, 2, ... within the match
    direction: Direction
    dealt: tuple[tuple[Card, ...], ...]  # each seat's hand as dealt, sorted
    salt: str  # 64 hex characters, revealed when the round ends
    commitment: str  # sha256 of the deal and salt, public from the deal on
    hands: tuple[frozenset[Card], ...]  # what each seat holds now
    passes: tuple[tuple[Card, ...] | None, ...]  # each seat's chosen three
    exchanged: bool  # the passed cards have moved (always True with no pass)
    trick: Trick  # the trick being played (the next, empty one between tricks)
    tricks: tuple[Trick, ...]  # the completed tricks, in order
    taken: tuple[int, ...]  # raw points taken so far in this round
    tricks_taken: tuple[int, ...]
    hearts_broken: bool
    revokes: tuple[tuple[int, int], ...]  # (seat, trick number) of every revoke
    awaiting_since: datetime  # when the awaited action became due
    rules: RuleSet = CLASSIC  # the table's rule set, which the rules read
    moon_choice: int | None = None  # the shooter who must choose how its moon is paid

    @property
    def is_passing(self) -> bool:
        return not self.exchanged

    @property
    def is_complete(self) -> bool:
        return len(self.tricks) == self.rules.hand_size

    @property
    def revokers(self) -> frozenset[int]:
        return frozenset(seat for seat, _ in self.revokes)


@dataclass(frozen=True)
class Accusation:
    accuser: int
    accused: int
    revoke_found: bool
    penalized_seat: int


@dataclass(frozen=True)
class RoundRecord:
    """A finished round as the match history keeps it."""

    round: Round  # its last state: deal, passes, tricks
    points: tuple[int, ...]  # what was added to the scores
    moon: int | None
    accusation: Accusation | None
    scores: tuple[int, ...]  # the match scores after this round


@dataclass(frozen=True)
class Standing:
    seat: int
    score: int
    rank: int


@dataclass(frozen=True)
class Result:
    reason: EndReason
    winners: tuple[int, ...]
    losers: tuple[int, ...]  # seats that resigned or were awaited at an abandonment
    standings: tuple[Standing, ...]
    teams: tuple[TeamStanding, ...] | None = None  # with partnerships


@dataclass(frozen=True)
class TeamStanding:
    seats: tuple[int, ...]
    score: int
    rank: int


@dataclass(frozen=True)
class Match:
    number: int  # 1, 2, ... with rematches
    scores: tuple[int, ...] = NO_POINTS
    history: tuple[RoundRecord, ...] = ()
    # The round being played; None between a round's end and the next deal
    # (never seen outside a command) and after a match that ended on its target.
    # A match ended by resignation or abandonment keeps its unfinished round.
    round: Round | None = None
    result: Result | None = None

    @property
    def is_finished(self) -> bool:
        return self.result is not None

    @property
    def next_round_number(self) -> int:
        return len(self.history) + 1


@dataclass(frozen=True)
class TableState:
    version: int = 0  # the seq of the last event applied
    created: bool = False
    options: Options = field(default_factory=Options)
    seats: tuple[Seat, ...] = (Seat(), Seat(), Seat(), Seat())
    spectators: tuple[Spectator, ...] = ()
    matches: tuple[Match, ...] = ()  # every match of the table, the current one last
    updated_at: datetime | None = None

    @property
    def match(self) -> Match | None:
        return self.matches[-1] if self.matches else None

    @property
    def round(self) -> Round | None:
        if not self.matches:
            return None
        match = self.matches[-1]
        return match.round if match.result is None else None

    @property
    def status(self) -> Status:
        match = self.match
        if match is None:
            return Status.WAITING
        if match.result is not None:
            return Status.FINISHED
        if match.round is not None and match.round.is_passing:
            return Status.PASSING
        return Status.PLAYING

    @property
    def is_running(self) -> bool:
        match = self.match
        return match is not None and match.result is None

    @property
    def empty_seats(self) -> tuple[int, ...]:
        return tuple(seat for seat, info in enumerate(self.seats) if info.is_empty)

    @property
    def turn(self) -> int | None:
        """The seat that must play a card now, or None."""
        rnd = self.round
        if rnd is None or not rnd.exchanged or len(rnd.tricks) == rnd.rules.hand_size:
            return None  # passing, or the round is over (or waits for a moon choice)
        trick = rnd.trick
        return (trick.leader + len(trick.cards)) % len(self.seats)  # the trick's next seat

    @property
    def awaiting(self) -> tuple[int, ...]:
        """The seats whose action the table is waiting for."""
        rnd = self.round
        if rnd is None:
            return ()
        if not rnd.exchanged:  # passing: every seat that has not chosen yet
            return tuple(seat for seat, chosen in enumerate(rnd.passes) if chosen is None)
        if rnd.moon_choice is not None:
            return (rnd.moon_choice,)  # the shooter chooses how its moon is paid
        if len(rnd.tricks) == rnd.rules.hand_size:
            return ()
        trick = rnd.trick
        return ((trick.leader + len(trick.cards)) % len(self.seats),)  # the seat on turn

    @property
    def awaiting_since(self) -> datetime | None:
        rnd = self.round
        return rnd.awaiting_since if rnd is not None and self.awaiting else None
