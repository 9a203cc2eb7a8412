"""The event log of a table, as this viewer may see it."""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from . import schemas
from .arguments import query_arguments
from .auth import access
from .context import service
from .docs import INVALID, operation

blp = Blueprint("events", __name__, url_prefix="/v1/tables", description="The table's event log, oldest first.")


@blp.route("/<table_id>/events", methods=["GET"])
@query_arguments(blp, schemas.EventsQuerySchema())
@blp.response(200, schemas.EventPageSchema)
@operation(blp, "listEvents", INVALID)
def list_events(query: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Events after `after`, at most `limit`; hidden fields are null until the rules make them public.

    Oldest first. Each event's `type` tells which `data` it carries. Page on with
    `after=next_after` until `next_after` stops moving.
    """
    who = access(table_id)
    events, next_after = service().events(who, query["after"], query["limit"])
    return {"events": events, "next_after": next_after}
