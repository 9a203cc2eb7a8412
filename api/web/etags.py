"""The ETag of a view: decided from the version and the viewer, before any replay.

It changes exactly when the table's version changes (every event changes
the view's `version`), and differs per viewer, since views differ. It says
nothing about any hand.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import g, request
from flask_smorest import Blueprint

from ..service.tables import Access


def etag_data(access: Access, version: int) -> dict[str, object]:
    viewer = access.viewer
    who = f"s{viewer.seat}" if viewer.seat is not None else f"w{viewer.spectator}"
    return {"table": access.table_id, "version": version, "viewer": who}


def etag_of(access: Access, version: int) -> str:
    return Blueprint._generate_etag(etag_data(access, version))


def set_view_etag(blp: Blueprint, access: Access, version: int) -> None:
    """Set the view's ETag; flask-smorest answers 304 here if `If-None-Match` holds it."""
    g.etag = etag_of(access, version)  # the 304 answer carries the ETag too
    blp.set_etag(etag_data(access, version))


def matches_if_none_match(access: Access, version: int) -> bool:
    return etag_of(access, version) in request.if_none_match


def if_match_precondition(access: Access, header: str | None) -> Callable[[int], bool] | None:
    """A check of the version under the table lock, from `If-Match` (an ETag or a version)."""
    if not header:
        return None
    candidates = {part.strip().removeprefix("W/").strip('"') for part in header.split(",")}

    def holds(version: int) -> bool:
        return "*" in candidates or str(version) in candidates or etag_of(access, version) in candidates

    return holds
