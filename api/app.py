"""The Flask application factory: `create_app()` wires settings, store, service and web layer."""

from __future__ import annotations

import random
from typing import Any

from flask import Flask
from flask_cors import CORS

from .config import Settings
from .service.clock import Clock
from .service.idempotency import IdempotencyLedger
from .service.tables import TableService
from .store import database_url, open_store
from .store.ports import Store

API_DESCRIPTION = """\
A stored table for Copas (Hearts): create a table, share its invite link, pass
three cards, play tricks, accuse a revoke, resign, rematch. Players need not be
online together: poll `GET /v1/tables/{id}` (with `If-None-Match` and `?wait=`)
or set a webhook with `PATCH /v1/tables/{id}/me`.

Every table resource needs `Authorization: Bearer <token>`, the token returned
once when you create or join the table. Errors are `application/problem+json`
with a stable `code`. Cards are two characters: rank `2-9 T J Q K A`, suit
`C D H S` (`2C`, `TH`, `QS`). Seats are 0..3, clockwise.
"""

# What a browser script may read of an answer, and how long it may reuse a preflight
# (without it, a browser preflights almost every authorized poll).
EXPOSED_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "RateLimit",
    "RateLimit-Policy",
    "WWW-Authenticate",
    "Idempotency-Replayed",
)
PREFLIGHT_MAX_AGE = 86400


class CopasFlask(Flask):
    """Flask, asking once per function whether it is a coroutine.

    Every layer of flask-smorest's decorators calls `ensure_sync` on each request,
    and each call inspects the function again; no view here is `async`, and a
    function's kind never changes, so the answer is kept.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synced: dict[Any, Any] = {}

    SYNCED_FUNCTIONS = 4096  # views, hooks and handlers: a few hundred; a bound in case some are made per request

    def ensure_sync(self, func: Any) -> Any:
        synced = self._synced.get(func)
        if synced is None:
            synced = super().ensure_sync(func)
            if len(self._synced) < self.SYNCED_FUNCTIONS:
                self._synced[func] = synced
        return synced


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    clock: Clock | None = None,
    rng: random.Random | None = None,
) -> Flask:
    from .web import ratelimit, register_api

    settings = settings or Settings.from_env()
    app = CopasFlask(__name__)
    app.config.update(
        API_TITLE="Copas table",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/v1",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="/v1/docs/assets/",  # served by the service itself (api.web.docs)
        API_SPEC_OPTIONS=_spec_options(),
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        JSON_SORT_KEYS=False,
        COPAS_SETTINGS=settings,
    )
    store = store or open_store(settings.database_url or database_url())
    service = TableService(store, settings, clock=clock, rng=rng)
    app.extensions["copas"] = {"service": service, "ledger": IdempotencyLedger(store, service.clock), "store": store}
    if settings.cors_origins:
        CORS(
            app,
            origins=list(settings.cors_origins),
            expose_headers=list(EXPOSED_HEADERS),
            allow_headers=["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "Last-Event-ID"],
            methods=["GET", "POST", "PATCH", "OPTIONS"],
            max_age=PREFLIGHT_MAX_AGE,
        )
    register_api(app)
    ratelimit.install(app, settings)
    return app


def _spec_options() -> dict[str, Any]:
    return {
        "info": {"description": API_DESCRIPTION},
        "servers": [{"url": "/"}],
        "components": {
            "securitySchemes": {
                "bearerAuth": {"type": "http", "scheme": "bearer", "description": "The token from creating or joining the table."}
            }
        },
    }
