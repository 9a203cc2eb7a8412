"""The service objects of the running app (one per process, made by create_app)."""

from __future__ import annotations

from flask import current_app

from ..service.idempotency import IdempotencyLedger
from ..service.tables import TableService


def service() -> TableService:
    return current_app.extensions["copas"]["service"]


def ledger() -> IdempotencyLedger:
    return current_app.extensions["copas"]["ledger"]
