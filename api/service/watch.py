"""Following a table: the views one viewer may see, each time it changes.

What the stream (`GET /v1/tables/{id}/stream`) sends, transport aside. It
yields `(version, view bytes)` when the view changed since the last one sent
(or since the version the client says it saw), and `None` when a keep-alive
is due. It keeps no queue: after any pause (a slow client, a burst of moves)
it sends the newest view only, so a client that stops reading holds one
message at most. Waiting holds no thread and no database connection (the
version map wakes it), and a database that goes away is waited out: the
stream keeps its keep-alives and carries on when the database is back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from .tables import Access, TableService
from .versions import FALLBACK_POLL_SECONDS, Hangup

log = logging.getLogger(__name__)


def follow(
    service: TableService,
    access: Access,
    after: int | None,
    version: int,
    *,
    seconds: float,
    keepalive: float,
    hangup: Hangup,
) -> Iterator[tuple[int, bytes] | None]:
    """The viewer's views after version `after` (from the current one when None), for
    `seconds`; `version` is the table's version read before the stream began."""
    table_id = access.table_id
    deadline = time.monotonic() + seconds
    sent = after
    while True:
        if version != sent:
            try:
                version, body = service.view_json(access, version)
            except Exception:  # noqa: BLE001 - the database is away: keep the stream, try again
                log.warning("stream of %s: the view could not be read; trying again", table_id)
                time.sleep(FALLBACK_POLL_SECONDS)
                yield None
            else:
                sent = version
                yield version, body
        remaining = deadline - time.monotonic()
        if remaining <= 0 or hangup.gone():
            return
        seen = sent if sent is not None else version
        try:
            version = service.wait_for_change(table_id, seen, min(keepalive, remaining), hangup, kind="stream")
        except Exception:  # noqa: BLE001 - still away at the end of this wait: a keep-alive, and wait on
            version = seen
        if version == seen:
            yield None
