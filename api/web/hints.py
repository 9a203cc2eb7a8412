"""A hint: the move the strong bot would make for the seat that must act, and why."""

from __future__ import annotations

from typing import Any

from flask import request
from flask_smorest import Blueprint

from ..engine.errors import NotYourTurn
from ..engine.hints import LANGUAGES
from ..service.errors import Forbidden, HintsDisabled, ThinkerUnavailable
from . import schemas
from .auth import access
from .context import service
from .docs import operation

blp = Blueprint("hints", __name__, url_prefix="/v1/tables", description="Hints: a suggested move and its reasons.")


@blp.route("/<table_id>/hint", methods=["GET"])
@blp.response(200, schemas.HintSchema, headers={"Content-Language": {"description": "The language of the reasons: en or pt-BR.", "schema": {"type": "string"}}})
@operation(blp, "getHint", Forbidden, HintsDisabled, NotYourTurn, ThinkerUnavailable)
def get_hint(table_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
    """For the seat that must act: the pass, play or moon choice a good player would make, and why.

    The reasons are in Portuguese for `Accept-Language: pt-BR` (or `pt`), in
    English otherwise; `Content-Language` says which. A seat with nothing to
    do now gets 409 `not_your_turn`, a spectator 403 `forbidden`, and a table
    created with `hints: false` 403 `hints_disabled`.
    """
    hint = service().hint(access(table_id))
    language = request.accept_languages.best_match(LANGUAGES, default=LANGUAGES[0])
    reasons = [{"tip": reason.tip, "text": reason.text(language)} for reason in hint.reasons]
    body = {"action": hint.action, "cards": list(hint.cards), "choice": hint.choice, "reasons": reasons}
    return body, 200, {"Content-Language": language, "Vary": "Accept-Language, Authorization"}
