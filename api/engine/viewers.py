"""Who is looking: a seated player or a spectator."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    PLAYER = "player"  # holds a seat
    SPECTATOR = "spectator"  # watches: no hand, no moves


@dataclass(frozen=True)
class Viewer:
    seat: int | None = None  # a player's seat
    spectator: int | None = None  # a spectator's number

    @property
    def is_player(self) -> bool:
        return self.seat is not None

    @property
    def role(self) -> Role:
        return Role.PLAYER if self.is_player else Role.SPECTATOR


SPECTATOR = Viewer()
