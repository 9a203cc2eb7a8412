"""The invite link: look at a table before joining, and join it."""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask_smorest import Blueprint

from . import schemas
from ..service.errors import NotFound
from .context import service
from .docs import INVALID, TOO_LARGE, operation
from .tables import admission_body

blp = Blueprint("invites", __name__, url_prefix="/v1/invites", description="Join a table through its invite link.")


@blp.route("/<invite_code>", methods=["GET"])
@blp.response(200, schemas.InvitationSchema)
@operation(blp, "getInvitation", NotFound, public=True)
def look(invite_code: str) -> dict[str, Any]:
    """What the invite link shows: the table's options and seats, and whether you would play or watch.

    No token is needed and no card is shown.
    """
    base = current_app.config["COPAS_SETTINGS"].public_url
    return {**service().invitation(invite_code), "join_url": f"{base}/v1/invites/{invite_code}/join"}


@blp.route("/<invite_code>/join", methods=["POST"])
@blp.arguments(schemas.JoinSchema(), example={"name": "Bruno"})
@blp.response(201, schemas.AdmissionSchema)
@operation(blp, "joinTable", NotFound, INVALID, TOO_LARGE, public=True)
def join(body: dict[str, Any], invite_code: str) -> dict[str, Any]:
    """The first three people to join take seats 1, 2 and 3; later ones get spectator tokens.

    Each join is a new person with its own token (shown once). Joining never fails for lack
    of seats: once they are taken, you watch.
    """
    return admission_body(service().join(invite_code, body["name"]))
