"""The ETag of a view: decided from the version and the viewer, before any replay.

It changes exactly when the table's version changes (every event changes
the view's `version`), and differs per viewer, since views differ. It says
nothing about any hand.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from functools import lru_cache, wraps
from typing import Any

from flask import Flask, Response, g, request
from flask_smorest import Blueprint

from ..engine import Viewer
from ..service.tables import Access


def etag_data(access: Access, version: int) -> dict[str, object]:
    viewer = access.viewer
    who = f"s{viewer.seat}" if viewer.seat is not None else f"w{viewer.spectator}"
    return {"table": access.table_id, "version": version, "viewer": who}


def etag_of(access: Access, version: int) -> str:
    return _etag(access.table_id, access.viewer, version)


@lru_cache(maxsize=65536)
def _etag(table_id: str, viewer: Viewer, version: int) -> str:
    # Every poll asks again for the same few ETags: a hash computed once each.
    return Blueprint._generate_etag(etag_data(Access(table_id, viewer, ""), version))


def view_etag(handler: Callable[..., Any]) -> Callable[..., Any]:
    """An ETag'd view: documented as flask-smorest's `blp.etag` documents one (304, If-None-Match,
    If-Match), while the ETag itself is set here, from the version (`set_view_etag`), not by
    hashing the answer again on every request."""

    @wraps(handler)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        response = handler(*args, **kwargs)
        etag = g.pop("etag", None)
        if etag is not None and isinstance(response, Response) and response.status_code < 400:
            response.set_etag(etag)
        return response

    wrapper._apidoc = {**deepcopy(getattr(handler, "_apidoc", {})), "etag": True}  # type: ignore[attr-defined]
    return wrapper


def set_view_etag(access: Access, version: int) -> None:
    """The answer is this viewer's view at `version`: its ETag."""
    g.etag = etag_of(access, version)


def not_modified(access: Access, version: int) -> Response:
    """304: the client's view (`If-None-Match`) is the current one."""
    response = Response(status=304)
    response.set_etag(etag_of(access, version))
    return response


def matches_if_none_match(access: Access, version: int) -> bool:
    """If-None-Match compares weakly (RFC 9110 13.1.2): `W/"x"` matches `"x"`, and `*` matches any."""
    return request.if_none_match.contains_weak(etag_of(access, version))


def install(app: Flask) -> None:
    """An answer with an ETag to a bearer's request is a view (a 200, a move's 201, its replay, a 304): mark it private.

    Static files (the web client, the docs' assets) have ETags too, but no credentials: they stay cacheable.
    """

    @app.after_request
    def private_view(response: Response) -> Response:
        # Read straight from the environ and the header list: this runs on every poll,
        # and werkzeug's header views raise (and catch) an exception for each missing name.
        headers = response.headers
        if "HTTP_AUTHORIZATION" in request.environ and headers.get("ETag") is not None:
            # One viewer's: shared caches keep none, private ones revalidate each time.
            headers["Cache-Control"] = "private, no-cache"
            vary = headers.get("Vary")
            if vary is None:
                headers["Vary"] = "Authorization"
            elif "authorization" not in vary.lower():
                headers["Vary"] = f"{vary}, Authorization"
        return response


def if_match_precondition(access: Access, header: str | None) -> Callable[[int], bool] | None:
    """A check of the version under the table lock, from `If-Match` (an ETag or a version)."""
    if not header:
        return None
    candidates = {part.strip().removeprefix("W/").strip('"') for part in header.split(",")}

    def holds(version: int) -> bool:
        return "*" in candidates or str(version) in candidates or etag_of(access, version) in candidates

    return holds
