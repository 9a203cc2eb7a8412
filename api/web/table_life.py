"""Table life: accusations, resignation, abandonment, rematch, and your preferences."""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from . import schemas
from .auth import access
from .context import service
from .docs import BEARER, errors
from .etags import if_match_precondition
from .moves import move, moved

blp = Blueprint("table-life", __name__, url_prefix="/v1/tables", description="Accuse a revoke, resign, end a stalled match, rematch, preferences.")


@move(blp, "/<table_id>/accusations", body=schemas.AccusationSchema, example={"seat": 2}, answer=schemas.AccusationAnswerSchema)
def accuse(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Accuse another seat of a revoke in this round (revoke-allowed tables): the round ends at once."""
    who = access(table_id)
    outcome, accusation = service().accuse(who, body["seat"], if_match_precondition(who, headers.get("if_match")))
    return {**moved(blp, who, outcome), "revoke_found": accusation.revoke_found, "penalized_seat": accusation.penalized_seat}


@move(blp, "/<table_id>/resignation")
def resign(headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Resign: the match ends for all four and your seat loses."""
    who = access(table_id)
    return moved(blp, who, service().resign(who, if_match_precondition(who, headers.get("if_match"))))


@move(blp, "/<table_id>/abandonment")
def abandon(headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """End a match that has waited more than 48 hours on other seats: they lose."""
    who = access(table_id)
    return moved(blp, who, service().abandon(who, if_match_precondition(who, headers.get("if_match"))))


@move(blp, "/<table_id>/rematch")
def rematch(headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """After a finished match: a new match with the same seats and options."""
    who = access(table_id)
    return moved(blp, who, service().rematch(who, if_match_precondition(who, headers.get("if_match"))))


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
