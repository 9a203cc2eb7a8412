"""Who is looking: a seated player or a spectator."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Viewer:
    seat: int | None = None  # a player's seat
    spectator: int | None = None  # a spectator's number

    @property
    def is_player(self) -> bool:
        return self.seat is not None

    @property
    def role(self) -> str:
        return "player" if self.is_player else "spectator"


SPECTATOR = Viewer()
