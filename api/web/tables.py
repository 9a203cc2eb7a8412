"""The table resource: create, view (ETag, long poll), and every move.

Handlers are thin: schema in, the service's use case, schema out.
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint

from ..engine import errors as rules
from ..engine import rule_set
from ..service.tables import Admission
from . import schemas
from .arguments import query_arguments
from .auth import access
from .context import service
from .docs import INVALID, TOO_LARGE, operation
from .etags import if_match_precondition, matches_if_none_match, not_modified, set_view_etag, view_etag
from .hangup import client_hangup
from .moves import move, moved

blp = Blueprint("tables", __name__, url_prefix="/v1/tables", description="Tables: create one, watch it, make moves.")

def admission_body(admission: Admission) -> dict[str, Any]:
    body: dict[str, Any] = {
        "table_id": admission.table_id,
        "role": admission.role,
        "seat": admission.seat,
        "spectator": admission.spectator,
        "token": admission.token,
    }
    if admission.invite_code is not None:
        body["invite_code"] = admission.invite_code
        body["invite_url"] = f"{current_app.config['COPAS_SETTINGS'].public_url}/v1/invites/{admission.invite_code}"
    return body


@blp.route("", methods=["POST"])
@blp.arguments(schemas.CreateTableSchema(), example={"name": "Ana", "target_score": 100, "revoke": "prevented", "tie": "share"})
@blp.response(201, schemas.CreateTableAnswerSchema)
@operation(blp, "createTable", INVALID, TOO_LARGE, public=True)
def create_table(body: dict[str, Any]) -> dict[str, Any]:
    """Create a table: you take seat 0 and get the invite link to share.

    No token is needed. The answer holds your bearer token (shown once: keep it) and the
    invite link; the first three people who join by it take seats 1 to 3.
    """
    given = {name: value for name, value in body.items() if name != "name"}
    return admission_body(service().create_table(body["name"], rule_set.resolve(given)))


@blp.route("/<table_id>", methods=["GET"])
@view_etag
@query_arguments(blp, schemas.WaitQuerySchema())
@blp.response(200, schemas.TableViewSchema)
@operation(blp, "getTable", INVALID)
def get_table(query: dict[str, Any], table_id: str) -> Response:
    """Your view of the table. `If-None-Match` gives 304 when nothing changed; `?wait=N` waits for a change.

    Everything public, your own hand and the moves you may make now; nothing of another
    seat's hand. The ETag changes exactly when what you may see changes, and
    `If-None-Match` is compared weakly (`W/"…"` and `*` match too).
    """
    who = access(table_id)
    version = service().version(table_id)
    if query["wait"] and matches_if_none_match(who, version):
        version = service().wait_for_change(table_id, version, query["wait"], client_hangup())
    if matches_if_none_match(who, version):
        return not_modified(who, version)  # before any replay or rendering
    shown, body = service().view_json(who, version)  # `shown` is newer if the table moved on meanwhile
    if shown != version and matches_if_none_match(who, shown):
        return not_modified(who, shown)
    set_view_etag(who, shown)
    return Response(body, mimetype="application/json")


@move(
    blp,
    "/<table_id>/bots",
    "seatBots",
    rules.NotTheCreator,
    rules.TableFull,
    rules.SeatTaken,
    body=schemas.BotsSchema,
    example={"seats": [2, 3], "level": "basic"},
    body_required=False,
)
def seat_bots(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> Response:
    """The creator fills empty seats with bots before the match starts (`{}`: every empty seat).

    The match starts, and the first round is dealt, as soon as the last seat is filled.
    """
    who = access(table_id)
    precondition = if_match_precondition(who, headers.get("if_match"))
    return moved(who, service().seat_bots(who, tuple(body.get("seats") or ()), body["level"], precondition))


@move(
    blp,
    "/<table_id>/passes",
    "passCards",
    rules.MatchNotRunning,
    rules.NoPassThisRound,
    rules.WrongPhase,
    rules.CardNotInHand,
    rules.PassAlreadySubmitted,
    body=schemas.PassSchema,
    example={"cards": ["QS", "AS", "AH"]},
)
def choose_pass(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> Response:
    """Choose the three cards to pass; they move when all four seats have chosen.

    A choice is final. Until the exchange, your view shows the 10 cards you keep and
    `you.pass.given`; after it, `you.pass.received`.
    """
    who = access(table_id)
    precondition = if_match_precondition(who, headers.get("if_match"))
    return moved(who, service().choose_pass(who, tuple(body["cards"]), precondition))


@move(
    blp,
    "/<table_id>/plays",
    "playCard",
    rules.MatchNotRunning,
    rules.WrongPhase,
    rules.NotYourTurn,
    rules.CardNotInHand,
    rules.MustLeadTwoOfClubs,
    rules.MustFollowSuit,
    rules.NoPointsOnFirstTrick,
    rules.HeartsNotBroken,
    body=schemas.PlaySchema,
    example={"card": "2C"},
)
def play(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> Response:
    """Play a card on your turn.

    When a card breaks several rules, the code is the first that applies, in the order the
    409 lists them. Bots answer at once: the view returned is the table after their moves.
    """
    who = access(table_id)
    precondition = if_match_precondition(who, headers.get("if_match"))
    return moved(who, service().play(who, body["card"], precondition))
