"""Bots: players that choose from the engine's own legal moves, seeing only their seat's view.

Two levels, picked by the seat's `bot_level`:
  basic   a fast rule-based player (`basic`), well under a millisecond a card;
  strong  determinized Monte Carlo search with basic rollouts (`strong`), about
          0.2 s a card in the service (its wall-clock limit).
A policy is anything with `choose_pass(view, rng)` and `choose_play(view, rng)`.

In the service, basic bots answer inline, within the command that made them
due; strong bots think apart (`api.service.bots_worker`), never while the
table's row is locked, and post their move as a command of their own.

Every level plays every rule set (its simulator, `sim`, follows the table's
rules and scoring), and every level chooses a moon's payment the same way
(`basic.choose_moon`).
"""

from __future__ import annotations

import random
from typing import Any

from ..commands import ChooseMoon, ChoosePass, Command, PlayCard
from ..state import TableState
from . import basic, strong
from .view import BotView, bot_view

POLICIES = {"basic": basic, "strong": strong}
THINKS_APART = frozenset({"strong"})  # the levels whose search is too slow to run inside a command


def seats_to_act(state: TableState, *, inline_only: bool = False) -> tuple[int, ...]:
    """The bot seats the table is waiting for (with `inline_only`, those that answer at once)."""
    return tuple(
        seat
        for seat in state.awaiting
        if state.seats[seat].is_bot and not (inline_only and state.seats[seat].bot_level in THINKS_APART)
    )


def thinking_seats(state: TableState) -> tuple[int, ...]:
    """The awaited bot seats whose move is thought out apart, off the command."""
    return tuple(seat for seat in state.awaiting if state.seats[seat].is_bot and state.seats[seat].bot_level in THINKS_APART)


def bot_decision(
    view: BotView, level: str, rng: random.Random, *, seconds: float | None = None, budget: int = strong.DEFAULT_BUDGET
) -> Command:
    """What a bot of `level` does from this view; the strong search stops at `budget` plays or `seconds`."""
    policy: Any = strong.StrongPolicy(budget=budget, seconds=seconds) if level == "strong" else POLICIES.get(level, basic)
    return _command(view, policy, rng)


def _command(view: BotView, policy: Any, rng: random.Random) -> Command:
    if view.phase == "moon":
        return ChooseMoon(view.seat, basic.choose_moon(view))
    if view.phase == "pass":
        return ChoosePass(view.seat, policy.choose_pass(view, rng))
    return PlayCard(view.seat, policy.choose_play(view, rng))


def bot_command(state: TableState, seat: int, rng: random.Random) -> Command | None:
    """What the bot at `seat` does now, decided from its own view only."""
    view = bot_view(state, seat)
    if view is None:
        return None
    return _command(view, POLICIES.get(state.seats[seat].bot_level or "basic", basic), rng)


__all__ = ["BotView", "bot_command", "bot_decision", "bot_view", "seats_to_act", "thinking_seats"]
