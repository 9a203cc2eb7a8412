"""Taking turns: a gevent worker's clients share its loop fairly.

A greenlet serving a keep-alive connection yields only when it must wait. A
client that sends its next request as soon as it has the answer (a poller, a
frontend in a loop) finds it already in the socket buffer, so a request that
needs no database round trip (a 304, a cached view) never waits: that one
connection keeps the worker's loop, while its other clients, and the node's
LISTEN heartbeat that keeps the version map trusted, starve for up to a second.
One yield at the start of each request puts the connection at the back of the
queue: a few microseconds per request, and every greenlet gets its turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def taking_turns(app: Wsgi) -> Wsgi:
    """`app`, yielding to the worker's other greenlets before each request."""
    from gevent import sleep

    def turn(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        sleep(0)  # the others ready to run go first
        return app(environ, start_response)

    return turn
