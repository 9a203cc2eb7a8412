"""What a player (or the table itself) asks for. `decide` answers with events."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .state import Options


@dataclass(frozen=True)
class CreateTable:
    name: str  # the creator's name; the creator takes seat 0
    options: Options = Options()


@dataclass(frozen=True)
class Join:
    """Open the invite link: take the lowest empty seat, or watch."""

    name: str


@dataclass(frozen=True)
class SeatBots:
    seat: int  # who asks: only the creator (seat 0) may
    seats: tuple[int, ...] = ()  # empty: every empty seat
    level: str = "basic"


@dataclass(frozen=True)
class ChoosePass:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class PlayCard:
    seat: int
    card: Card


@dataclass(frozen=True)
class Accuse:
    seat: int
    accused: int


@dataclass(frozen=True)
class ChooseMoon:
    """The shooter's choice, under `moon: shooter_chooses`: others_score or shooter_subtracts."""

    seat: int
    choice: str


@dataclass(frozen=True)
class Resign:
    seat: int


@dataclass(frozen=True)
class Abandon:
    seat: int


@dataclass(frozen=True)
class Rematch:
    seat: int


@dataclass(frozen=True)
class ChangePreferences:
    seat: int | None = None  # a player's seat, or None for a spectator
    spectator: int | None = None
    name: str | None = None
    deck_design: str | None = None


Command = (
    CreateTable | Join | SeatBots | ChoosePass | PlayCard | Accuse | ChooseMoon | Resign | Abandon | Rematch | ChangePreferences
)
