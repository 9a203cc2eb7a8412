"""Which notifications a command causes: `your_turn` and `match_finished`.

Planned from the states before and after a command (bots' moves included),
and written to the outbox in the same transaction as the events, so a crash
can neither lose a notification nor send one for a move that never happened.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..engine.state import TableState
from ..store.ports import OutboxMessage, UnitOfWork


@dataclass(frozen=True)
class Notification:
    seat: int
    type: str  # your_turn | match_finished
    data: dict[str, Any]


def plan(table_id: str, before: TableState, after: TableState) -> list[Notification]:
    planned: list[Notification] = []
    # A seat is told when an action becomes due for it (bots are never told):
    # a due action is named by its place in the match, so the same action is
    # never announced twice, however many events arrive at the same instant.
    due_before = _due_actions(before)
    for seat, action in _due_actions(after).items():
        if after.seats[seat].is_bot or due_before.get(seat) == action:
            continue
        planned.append(Notification(seat, "your_turn", _your_turn(table_id, after, seat)))
    # Every human seat is told when its match ends.
    match = after.match
    if match is not None and match.result is not None and not _was_finished(before, match.number):
        result = match.result
        for seat, info in enumerate(after.seats):
            if info.is_human:
                data = {
                    "table_id": table_id,
                    "seat": seat,
                    "version": after.version,
                    "match": match.number,
                    "reason": result.reason.value,
                    "winners": list(result.winners),
                    "scores": list(match.scores),
                }
                planned.append(Notification(seat, "match_finished", data))
    return planned


def due_now(table_id: str, state: TableState, seat: int) -> list[Notification]:
    """`your_turn` for `seat` if its action is due right now (when a webhook is set while it waits)."""
    if seat not in _due_actions(state) or not state.seats[seat].is_human:
        return []
    return [Notification(seat, "your_turn", _your_turn(table_id, state, seat))]


def _your_turn(table_id: str, state: TableState, seat: int) -> dict[str, Any]:
    rnd = state.round
    action = "moon" if rnd is not None and rnd.moon_choice == seat else "pass" if rnd is not None and rnd.is_passing else "play"
    return {"table_id": table_id, "seat": seat, "version": state.version, "action": action}


def _due_actions(state: TableState) -> dict[int, tuple[object, ...]]:
    """The awaited seats, each with a key naming the action it owes."""
    rnd, match = state.round, state.match
    if rnd is None or match is None:
        return {}
    if rnd.is_passing:
        key: tuple[object, ...] = (match.number, rnd.number, "pass")
    elif rnd.moon_choice is not None:
        key = (match.number, rnd.number, "moon")
    else:
        key = (match.number, rnd.number, "play", rnd.trick.number, len(rnd.trick.cards))
    return {seat: key for seat in state.awaiting}


def _was_finished(state: TableState, match_number: int) -> bool:
    match = state.match
    return match is not None and match.number == match_number and match.is_finished


def enqueue(uow: UnitOfWork, table_id: str, notifications: list[Notification], now: datetime) -> None:
    """Write each notification to the outbox for seats that have a live webhook."""
    for notification in notifications:
        webhook = uow.webhook(table_id, notification.seat)
        if webhook is None or webhook.disabled:
            continue
        body = {"type": notification.type, "timestamp": _iso(now), "data": notification.data}
        uow.enqueue(
            OutboxMessage(
                id=f"msg_{secrets.token_hex(12)}",
                table_id=table_id,
                seat=notification.seat,
                type=notification.type,
                payload=json.dumps(body, separators=(",", ":"), sort_keys=True),
                attempts=0,
                next_attempt_at=now,
                status="pending",
                last_error=None,
            )
        )


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")
