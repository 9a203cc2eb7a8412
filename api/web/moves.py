"""What every move endpoint shares: one decorator instead of eight.

A move is a POST that takes an optional `If-Match` and `Idempotency-Key`,
answers 201 with the mover's new view and its ETag, needs a bearer token and
can be refused with the problems in MOVE_REFUSALS and its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import marshmallow as ma
from flask import Response
from flask_smorest import Blueprint

from ..service.errors import Forbidden, IdempotencyKeyReused, StaleVersion
from ..service.tables import Access, Outcome
from ..service.views_cache import render
from . import schemas
from .arguments import header_arguments
from .context import service
from .docs import INVALID, TOO_LARGE, Refusal, operation
from .etags import set_view_etag, view_etag
from .idempotency import idempotent

# What any move can be refused for, besides its own rules: a spectator's token, a stale
# If-Match, a reused Idempotency-Key, a body or header that does not match.
MOVE_REFUSALS: tuple[Refusal, ...] = (Forbidden, StaleVersion, IdempotencyKeyReused, INVALID, TOO_LARGE)

REPLAY_HEADER = {
    "Idempotency-Replayed": {
        "description": "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.",
        "schema": {"type": "string", "enum": ["true"]},
    }
}


def move(
    blp: Blueprint,
    path: str,
    operation_id: str,
    *refusals: Refusal,
    body: type[ma.Schema] | None = None,
    example: dict[str, Any] | None = None,
    body_required: bool = True,
    answer: type[ma.Schema] = schemas.TableViewSchema,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Route and document a move; the handler gets (body?, headers, table_id)."""

    def decorate(handler: Callable[..., Any]) -> Callable[..., Any]:
        endpoint = operation(blp, operation_id, *refusals, *MOVE_REFUSALS)(handler)
        endpoint = blp.response(201, answer, headers=REPLAY_HEADER)(endpoint)
        endpoint = header_arguments(blp, schemas.MoveHeadersSchema())(endpoint)
        if body is not None:
            endpoint = blp.arguments(body(), required=body_required, example=example)(endpoint)
        endpoint = view_etag(endpoint)
        endpoint = idempotent(endpoint)
        return blp.route(path, methods=["POST"])(endpoint)

    return decorate


def moved(who: Access, outcome: Outcome, **extra: Any) -> Response:
    """The mover's new view (and any `extra` fields of the answer), with its ETag.

    Written straight to JSON as a GET's view is (the schema documents it; a test checks both agree).
    """
    set_view_etag(who, outcome.state.version)
    body = render({**service().view(who, outcome.state), **extra})
    return Response(body, status=201, mimetype="application/json")
