"""The table resource: create, view (ETag, long poll), and every move.

Handlers are thin: schema in, the service's use case, schema out.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from flask_smorest import Blueprint

from ..engine import rule_set
from ..service.tables import Admission
from . import schemas
from .auth import access
from .context import service
from .docs import BEARER, errors
from .etags import if_match_precondition, matches_if_none_match, set_view_etag
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
@blp.arguments(schemas.CreateTableSchema, example={"name": "Ana", "target_score": 100, "revoke": "prevented", "tie": "share"})
@blp.response(201, schemas.AdmissionSchema)
@errors(blp, 413)
def create_table(body: dict[str, Any]) -> dict[str, Any]:
    """Create a table: you take seat 0 and get the invite link to share."""
    given = {name: value for name, value in body.items() if name != "name"}
    return admission_body(service().create_table(body["name"], rule_set.resolve(given)))


@blp.route("/<table_id>", methods=["GET"])
@blp.etag
@blp.arguments(schemas.WaitQuerySchema, location="query")
@blp.response(200, schemas.TableViewSchema)
@blp.doc(security=BEARER)
@errors(blp, 401, 404)
def get_table(query: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Your view of the table. `If-None-Match` gives 304 when nothing changed; `?wait=N` waits for a change."""
    who = access(table_id)
    version = service().version(table_id)
    if query["wait"] and matches_if_none_match(who, version):
        service().wait_for_change(table_id, version, query["wait"])
        version = service().version(table_id)
    set_view_etag(blp, who, version)  # 304 here, before any replay
    state = service().state(table_id, version)
    set_view_etag(blp, who, state.version)
    return service().view(who, state)


@move(blp, "/<table_id>/bots", body=schemas.BotsSchema, example={"seats": [2, 3], "level": "basic"}, body_required=False)
def seat_bots(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """The creator fills empty seats with bots before the match starts (`{}`: every empty seat)."""
    who = access(table_id)
    precondition = if_match_precondition(who, headers.get("if_match"))
    return moved(blp, who, service().seat_bots(who, tuple(body.get("seats") or ()), body["level"], precondition))


@move(blp, "/<table_id>/passes", body=schemas.PassSchema, example={"cards": ["QS", "AS", "AH"]})
def choose_pass(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Choose the three cards to pass; they move when all four seats have chosen."""
    who = access(table_id)
    precondition = if_match_precondition(who, headers.get("if_match"))
    return moved(blp, who, service().choose_pass(who, tuple(body["cards"]), precondition))


@move(blp, "/<table_id>/plays", body=schemas.PlaySchema, example={"card": "2C"})
def play(body: dict[str, Any], headers: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Play a card on your turn."""
    who = access(table_id)
    precondition = if_match_precondition(who, headers.get("if_match"))
    return moved(blp, who, service().play(who, body["card"], precondition))
