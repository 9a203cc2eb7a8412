"""Table life: accusations, resignation, abandonment, rematch, and your preferences."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask_smorest import Blueprint

from ..engine import errors as rules
from ..service.errors import Forbidden
from . import schemas
from .auth import access
from .context import service
from .docs import INVALID, TOO_LARGE, operation
from .etags import if_match_precondition
from .moves import move, moved

blp = Blueprint("table-life", __name__, url_prefix="/v1/tables", description="Accuse a revoke, choose a moon's payment, resign, end a stalled match, rematch, preferences.")


@move(
    blp,
    "/<table_id>/accusations",
    "accuseRevoke",
    rules.InvalidCommand,
    rules.MatchNotRunning,
    rules.RevokeNotAllowed,
    rules.WrongPhase,
    rules.CannotAccuseSelf,
    rules.BotsDoNotAccuse,
    body=schemas.AccusationSchema,
    example={"seat": 2},
    answer=schemas.AccusationAnswerSchema,
)
def accuse(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> Response:
    """Accuse another seat of a revoke in this round (revoke-allowed tables): the round ends at once.

    If the accused seat revoked this round it takes the penalty, otherwise you do; the
    answer is your new view with `revoke_found` and `penalized_seat`.
    """
    who = access(table_id)
    outcome, accusation = service().accuse(who, body["seat"], if_match_precondition(who, headers.get("if_match")))
    return moved(who, outcome, revoke_found=accusation.revoke_found, penalized_seat=accusation.penalized_seat)


@move(blp, "/<table_id>/moon", "chooseMoon", rules.InvalidCommand, rules.MatchNotRunning, rules.WrongPhase, rules.NotYourTurn, body=schemas.ChooseMoonSchema, example={"choice": "others_score"})
def choose_moon(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> Response:
    """Under `moon: shooter_chooses`, the shooter chooses how its moon is paid; the round ends.

    Another seat gets `not_your_turn`, a seat with no choice due `wrong_phase`.
    """
    who = access(table_id)
    return moved(who, service().choose_moon(who, body["choice"], if_match_precondition(who, headers.get("if_match"))))


@move(blp, "/<table_id>/resignation", "resign", rules.MatchNotRunning)
def resign(headers: dict[str, Any], table_id: str) -> Response:
    """Resign: the match ends for all four and your seat loses.

    The round's deal, salt and passes become public, as at the end of any round.
    """
    who = access(table_id)
    return moved(who, service().resign(who, if_match_precondition(who, headers.get("if_match"))))


@move(blp, "/<table_id>/abandonment", "abandonMatch", rules.MatchNotRunning, rules.AwaitedSeatCannotAbandon, rules.NotStalled)
def abandon(headers: dict[str, Any], table_id: str) -> Response:
    """End a match that has waited more than 48 hours on other seats: they lose.

    The wait is measured from `awaiting_since`; a seat the table is waiting for cannot ask.
    """
    who = access(table_id)
    return moved(who, service().abandon(who, if_match_precondition(who, headers.get("if_match"))))


@move(blp, "/<table_id>/rematch", "startRematch", rules.MatchNotFinished)
def rematch(headers: dict[str, Any], table_id: str) -> Response:
    """After a finished match: a new match with the same seats and options.

    Scores start again at 0, `history` empties and the pass cycle starts again from left.
    """
    who = access(table_id)
    return moved(who, service().rematch(who, if_match_precondition(who, headers.get("if_match"))))


@blp.route("/<table_id>/me", methods=["PATCH"])
@blp.arguments(schemas.PreferencesSchema(), required=False, example={"deck_design": "four-color"})
@blp.response(200, schemas.PreferencesAnswerSchema)
@operation(blp, "updatePreferences", Forbidden, INVALID, TOO_LARGE)
def change_me(body: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Change your name, your deck design, or your webhook (its secret is returned once).

    Spectators may change their name and deck design; only seats have webhooks. Setting a
    webhook answers its `webhook_secret` (`whsec_…`), with which you verify each delivery.
    """
    who = access(table_id)
    outcome, secret = service().change_preferences(who, body)
    view = service().view(who, outcome.state)
    return view if secret is None else {**view, "webhook_secret": secret}
