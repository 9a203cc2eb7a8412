"""Bots: players that choose from the engine's own legal moves, seeing only their seat's view.

Two levels, picked by the seat's `bot_level`:
  basic   a fast rule-based player (`basic`), well under a millisecond a card;
  strong  determinized Monte Carlo search with basic rollouts (`strong`), about
          0.2 s a card in the service (its wall-clock limit).
A policy is anything with `choose_pass(view, rng)` and `choose_play(view, rng)`.
"""

from __future__ import annotations

import random

from ..commands import ChoosePass, Command, PlayCard
from ..state import TableState
from . import basic, strong
from .view import BotView, bot_view

POLICIES = {"basic": basic, "strong": strong}


def seats_to_act(state: TableState) -> tuple[int, ...]:
    """The bot seats the table is waiting for."""
    return tuple(seat for seat in state.awaiting if state.seats[seat].is_bot)


def bot_command(state: TableState, seat: int, rng: random.Random) -> Command | None:
    """What the bot at `seat` does now, decided from its own view only."""
    view = bot_view(state, seat)
    if view is None:
        return None
    policy = POLICIES.get(state.seats[seat].bot_level or "basic", basic)
    if view.phase == "pass":
        return ChoosePass(seat, policy.choose_pass(view, rng))
    return PlayCard(seat, policy.choose_play(view, rng))


__all__ = ["BotView", "bot_command", "bot_view", "seats_to_act"]
