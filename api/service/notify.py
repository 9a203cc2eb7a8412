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
    # A seat is told when its action becomes due (bots are never told).
    since = after.awaiting_since
    for seat in after.awaiting:
        if after.seats[seat].is_bot:
            continue
        newly_due = seat not in before.awaiting or before.awaiting_since != since or _new_round(before, after)
        if newly_due:
            action = "pass" if after.round is not None and after.round.is_passing else "play"
            data = {"table_id": table_id, "seat": seat, "version": after.version, "action": action}
            planned.append(Notification(seat, "your_turn", data))
    # Every human seat is told when its match ends.
    match = after.match
    if match is not None and match.result is not None and not _was_finished(before, match.number):
        result = match.result
        for seat in range(4):
            if after.seats[seat].is_human:
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


def _was_finished(state: TableState, match_number: int) -> bool:
    match = state.match
    return match is not None and match.number == match_number and match.is_finished


def _new_round(before: TableState, after: TableState) -> bool:
    old, new = before.round, after.round
    return new is not None and (old is None or (old.number, before.match.number) != (new.number, after.match.number))  # type: ignore[union-attr]


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
