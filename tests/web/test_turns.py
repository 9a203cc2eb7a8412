"""Under gevent, clients of one worker take turns: a request never keeps the loop from the others."""

from __future__ import annotations

from typing import Any

import gevent

from api.web.turns import taking_turns


def test_two_clients_that_never_wait_are_served_in_turns() -> None:
    served: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        served.append(environ["client"])  # answers at once, as a 304 from the version map does
        return [b""]

    app_in_turns = taking_turns(app)

    def client(name: str) -> None:
        for _ in range(3):  # keep-alive: the next request is already there
            app_in_turns({"client": name}, lambda *_: None)

    gevent.joinall([gevent.spawn(client, "a"), gevent.spawn(client, "b")])
    assert served == ["a", "b", "a", "b", "a", "b"]
