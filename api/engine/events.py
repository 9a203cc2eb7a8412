"""The events of a table's stream: immutable facts, in the order they happened.

Randomness enters only through `RoundDealt`, which carries the shuffled hands
and the commitment salt, so a replay needs no random source. Fields that a
viewer may not see yet are `None` in a redacted copy (see `api.engine.redaction`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from .cards import Card
from .state import Options


@dataclass(frozen=True)
class Event:
    type: ClassVar[str]

    @property
    def actor(self) -> int | None:
        """The seat that acted, for the event envelope (None for the table itself)."""
        return getattr(self, "seat", None)


@dataclass(frozen=True)
class TableCreated(Event):
    type: ClassVar[str] = "table_created"
    seat: int  # always 0: the creator
    name: str
    options: Options


@dataclass(frozen=True)
class PlayerSeated(Event):
    type: ClassVar[str] = "player_seated"
    seat: int
    name: str


@dataclass(frozen=True)
class SpectatorJoined(Event):
    type: ClassVar[str] = "spectator_joined"
    spectator: int
    name: str


@dataclass(frozen=True)
class BotSeated(Event):
    type: ClassVar[str] = "bot_seated"
    seat: int
    name: str
    level: str


@dataclass(frozen=True)
class MatchStarted(Event):
    type: ClassVar[str] = "match_started"
    match: int
    requested_by: int | None = None  # the seat that asked for a rematch

    @property
    def actor(self) -> int | None:
        return self.requested_by


@dataclass(frozen=True)
class RoundDealt(Event):
    type: ClassVar[str] = "round_dealt"
    match: int
    round: int
    commitment: str
    hands: tuple[tuple[Card, ...] | None, ...]  # a None hand is withheld
    salt: str | None  # None while withheld


@dataclass(frozen=True)
class PassChosen(Event):
    type: ClassVar[str] = "pass_chosen"
    seat: int
    match: int
    round: int
    cards: tuple[Card, ...] | None  # None while withheld


@dataclass(frozen=True)
class CardPlayed(Event):
    type: ClassVar[str] = "card_played"
    seat: int
    card: Card


@dataclass(frozen=True)
class RevokeAccused(Event):
    type: ClassVar[str] = "revoke_accused"
    seat: int  # the accuser
    accused: int
    revoke_found: bool
    penalized_seat: int


@dataclass(frozen=True)
class MoonChosen(Event):
    type: ClassVar[str] = "moon_chosen"
    seat: int  # the shooter
    choice: str  # others_score | shooter_subtracts


@dataclass(frozen=True)
class Resigned(Event):
    type: ClassVar[str] = "resigned"
    seat: int


@dataclass(frozen=True)
class MatchAbandoned(Event):
    type: ClassVar[str] = "match_abandoned"
    seat: int  # who ended the stalled match
    awaited: tuple[int, ...]  # the seats the table was waiting for: they lose


@dataclass(frozen=True)
class PreferencesChanged(Event):
    type: ClassVar[str] = "preferences_changed"
    seat: int | None  # a player's seat, or None for a spectator
    spectator: int | None
    name: str | None  # None: unchanged
    deck_design: str | None  # None: unchanged


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        TableCreated,
        PlayerSeated,
        SpectatorJoined,
        BotSeated,
        MatchStarted,
        RoundDealt,
        PassChosen,
        CardPlayed,
        RevokeAccused,
        MoonChosen,
        Resigned,
        MatchAbandoned,
        PreferencesChanged,
    )
}


@dataclass(frozen=True)
class Recorded:
    """An event as the stream holds it: numbered and timed by the store."""

    seq: int
    at: datetime
    event: Event
