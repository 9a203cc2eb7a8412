"""The ETag of a view: decided from the version and the viewer, before any replay.

It changes exactly when the table's version changes (every event changes
the view's `version`), and differs per viewer, since views differ. It says
nothing about any hand.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from flask import Flask, Response, g, request
from flask_smorest import Blueprint
from flask_smorest.exceptions import NotModified

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


def set_view_etag(blp: Blueprint, access: Access, version: int) -> None:
    """Set the view's ETag, and answer 304 here if `If-None-Match` holds it."""
    etag = g.etag = etag_of(access, version)  # the 304 answer carries the ETag too
    if request.method in ("GET", "HEAD") and request.if_none_match.contains_weak(etag):
        raise NotModified
    blp.set_etag(etag_data(access, version))


def matches_if_none_match(access: Access, version: int) -> bool:
    """If-None-Match compares weakly (RFC 9110 13.1.2): `W/"x"` matches `"x"`, and `*` matches any."""
    return request.if_none_match.contains_weak(etag_of(access, version))


def install(app: Flask) -> None:
    """An answer with an ETag to a bearer's request is a view (a 200, a move's 201, its replay, a 304): mark it private.

    Static files (the web client, the docs' assets) have ETags too, but no credentials: they stay cacheable.
    """

    @app.after_request
    def private_view(response: Response) -> Response:
        if "ETag" in response.headers and "Authorization" in request.headers:
            # One viewer's: shared caches keep none, private ones revalidate each time.
            response.headers["Cache-Control"] = "private, no-cache"
            response.vary.add("Authorization")
        return response


def if_match_precondition(access: Access, header: str | None) -> Callable[[int], bool] | None:
    """A check of the version under the table lock, from `If-Match` (an ETag or a version)."""
    if not header:
        return None
    candidates = {part.strip().removeprefix("W/").strip('"') for part in header.split(",")}

    def holds(version: int) -> bool:
        return "*" in candidates or str(version) in candidates or etag_of(access, version) in candidates

    return holds
