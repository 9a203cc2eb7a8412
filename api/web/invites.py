"""The invite link: look at a table before joining, and join it."""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from . import schemas
from .context import service
from .docs import errors
from .tables import admission_body

blp = Blueprint("invites", __name__, url_prefix="/v1/invites", description="Join a table through its invite link.")


@blp.route("/<invite_code>/join", methods=["POST"])
@blp.arguments(schemas.JoinSchema, example={"name": "Bruno"})
@blp.response(201, schemas.AdmissionSchema)
@errors(blp, 404, 413)
def join(body: dict[str, Any], invite_code: str) -> dict[str, Any]:
    """The first three people to join take seats 1, 2 and 3; later ones get spectator tokens."""
    return admission_body(service().join(invite_code, body["name"]))
