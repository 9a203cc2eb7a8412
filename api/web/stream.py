"""The stream: `GET /v1/tables/{id}/stream`, Server-Sent Events of this viewer's view.

Each message is `event: view`, `id: <version>`, `data: <the view as one line
of JSON>`; a comment `: keep-alive` comes at least every 15 s; the stream
ends after 10 minutes and clients reconnect with `Last-Event-ID` (or
`?after_version=N`). Under gunicorn's gevent worker a waiting stream is a
greenlet parked on the node's version map: no thread, no database connection.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint

from ..service.watch import follow
from . import schemas
from .arguments import header_arguments, query_arguments
from .auth import access
from .context import service
from .docs import INVALID, operation
from .hangup import client_hangup

blp = Blueprint("stream", __name__, url_prefix="/v1/tables", description="Follow a table live: Server-Sent Events.")

KEEPALIVE = b": keep-alive\n\n"
# In the description, not as the media example: the schema describes one parsed
# message (an object), so the raw text would not validate against it.
EXAMPLE = 'event: view\nid: 42\ndata: {"table_id": "3f9a1c0b7d2e4a6f8b10", "version": 42, ...}\n\n: keep-alive\n\n'


@blp.route("/<table_id>/stream", methods=["GET"])
@query_arguments(blp, schemas.StreamQuerySchema())
@header_arguments(blp, schemas.StreamHeadersSchema())
@blp.response(
    200,
    schemas.STREAM_MESSAGE,
    content_type="text/event-stream",
    description="Messages `event: view`, `id: <version>`, `data: <the view, as in GET /v1/tables/{id}, on one line>`; "
    "`: keep-alive` comments at least every 15 s; the stream ends after 10 minutes (reconnect with Last-Event-ID). "
    f"For example:\n\n```\n{EXAMPLE}```",
)
@operation(blp, "streamTable", INVALID)
def stream(query: dict[str, Any], headers: dict[str, Any], table_id: str) -> Response:
    """Your view now, then each time it changes (SSE). Resume with `Last-Event-ID` or `?after_version=`.

    The same view, redaction and bytes as `GET /v1/tables/{id}`, one message per change;
    a waiting stream holds no server thread.
    """
    who = access(table_id)
    after = headers.get("last_event_id", query.get("after_version"))
    version = service().version(table_id)  # before the 200: a database away answers 503 now
    settings = current_app.config["COPAS_SETTINGS"]
    views = follow(
        service(),
        who,
        after,
        version,
        seconds=settings.stream_seconds,
        keepalive=settings.stream_keepalive_seconds,
        hangup=client_hangup(),
    )
    return Response(_messages(views), mimetype="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _messages(views: Iterator[tuple[int, bytes] | None]) -> Iterator[bytes]:
    try:
        for item in views:
            if item is None:
                yield KEEPALIVE
            else:
                version, body = item
                yield b"event: view\nid: %d\ndata: %s\n\n" % (version, body)
    finally:
        views.close()  # type: ignore[attr-defined]
