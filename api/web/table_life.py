"""Table life: accusations, resignation, abandonment, rematch, and your preferences."""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from . import schemas
from .auth import access
from .context import service
from .docs import BEARER, errors
from .etags import if_match_precondition
from .idempotency import idempotent
from .tables import MOVE_ERRORS, moved

blp = Blueprint("table-life", __name__, url_prefix="/v1/tables", description="Accuse a revoke, resign, end a stalled match, rematch, preferences.")


@blp.route("/<table_id>/accusations", methods=["POST"])
@idempotent
@blp.etag
@blp.arguments(schemas.AccusationSchema, example={"seat": 2})
@blp.arguments(schemas.MoveHeadersSchema, location="headers")
@blp.response(201, schemas.AccusationAnswerSchema)
@blp.doc(security=BEARER)
@errors(blp, *MOVE_ERRORS)
def accuse(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Accuse another seat of a revoke in this round (revoke-allowed tables): the round ends at once."""
    who = access(table_id)
    outcome, accusation = service().accuse(who, body["seat"], if_match_precondition(who, headers.get("if_match")))
    return {**moved(who, outcome), "revoke_found": accusation.revoke_found, "penalized_seat": accusation.penalized_seat}


@blp.route("/<table_id>/resignation", methods=["POST"])
@idempotent
@blp.etag
@blp.arguments(schemas.MoveHeadersSchema, location="headers")
@blp.response(201, schemas.TableViewSchema)
@blp.doc(security=BEARER)
@errors(blp, *MOVE_ERRORS)
def resign(headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Resign: the match ends for all four and your seat loses."""
    who = access(table_id)
    return moved(who, service().resign(who, if_match_precondition(who, headers.get("if_match"))))


@blp.route("/<table_id>/abandonment", methods=["POST"])
@idempotent
@blp.etag
@blp.arguments(schemas.MoveHeadersSchema, location="headers")
@blp.response(201, schemas.TableViewSchema)
@blp.doc(security=BEARER)
@errors(blp, *MOVE_ERRORS)
def abandon(headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """End a match that has waited more than 48 hours on other seats: they lose."""
    who = access(table_id)
    return moved(who, service().abandon(who, if_match_precondition(who, headers.get("if_match"))))


@blp.route("/<table_id>/rematch", methods=["POST"])
@idempotent
@blp.etag
@blp.arguments(schemas.MoveHeadersSchema, location="headers")
@blp.response(201, schemas.TableViewSchema)
@blp.doc(security=BEARER)
@errors(blp, *MOVE_ERRORS)
def rematch(headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """After a finished match: a new match with the same seats and options."""
    who = access(table_id)
    return moved(who, service().rematch(who, if_match_precondition(who, headers.get("if_match"))))


@blp.route("/<table_id>/me", methods=["PATCH"])
@blp.arguments(schemas.PreferencesSchema, required=False, example={"deck_design": "four-color"})
@blp.response(200, schemas.PreferencesAnswerSchema)
@blp.doc(security=BEARER)
@errors(blp, 401, 403, 404, 413, 422)
def change_me(body: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Change your name, your deck design, or your webhook (its secret is returned once)."""
    who = access(table_id)
    outcome, secret = service().change_preferences(who, body)
    view = service().view(who, outcome.state)
    return view if secret is None else {**view, "webhook_secret": secret}
