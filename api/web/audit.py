"""The audit of a table: every round replayed, with the deal-commitment check.

The response schemas live here (not in `schemas.py`) and are named `Audit…`
so that their OpenAPI components never collide with the view's.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask_smorest import Blueprint
from marshmallow import validate

from ..engine.rule_set import PLAYER_COUNTS, RuleSet
from .auth import access
from .context import service
from .docs import operation
from .schemas import SEAT_RANGE, Choice, DirectionField, OptionsSchema, ResultSchema, SeatKindField, StatusField

blp = Blueprint(
    "audit",
    __name__,
    url_prefix="/v1/tables",
    description="The replayed record of every round: deals, passes, tricks, points, scores, deal commitments.",
)

_HANDS = [
    ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"],
    ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"],
    ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"],
    ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"],
]
_SALT = "ab" * 32
_COMMITMENT = "d240eb83fe396feb80b4435501063c63a5b0c5b711eff5274d38d18012296fc0"  # deal_commitment(_HANDS, _SALT)
_SEAT = SEAT_RANGE


class AuditPlayedCardSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, validate=_SEAT, metadata={"example": 0})
    card = ma.fields.String(required=True, metadata={"example": "2C"})


class AuditTrickSchema(ma.Schema):
    number = ma.fields.Integer(required=True, validate=validate.Range(min=1, max=max(RuleSet(players=n).hand_size for n in PLAYER_COUNTS)), metadata={"example": 1})
    leader = ma.fields.Integer(required=True, validate=_SEAT, metadata={"example": 0})
    cards = ma.fields.List(
        ma.fields.Nested(AuditPlayedCardSchema),
        required=True,
        metadata={"example": [{"seat": 0, "card": "2C"}, {"seat": 1, "card": "AC"}, {"seat": 2, "card": "AD"}, {"seat": 3, "card": "JS"}]},
    )
    winner = ma.fields.Integer(
        allow_none=True, required=True, metadata={"description": "null for a trick still being played.", "example": 1}
    )


class AuditDealSchema(ma.Schema):
    hands = ma.fields.List(
        ma.fields.List(ma.fields.String(), allow_none=True),
        required=True,
        metadata={
            "description": "The four hands as dealt (before the pass), by seat, sorted by suit C D H S then rank. "
            "While the round runs only your own hand is shown; the others are null.",
            "example": _HANDS,
        },
    )
    salt = ma.fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "64 hex digits; null until the round ends.", "example": _SALT},
    )


class AuditPassSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, validate=_SEAT, metadata={"description": "The seat that passes.", "example": 0})
    to = ma.fields.Integer(required=True, validate=_SEAT, metadata={"description": "The seat that receives.", "example": 1})
    chosen = ma.fields.Boolean(required=True, metadata={"description": "Whether this seat has chosen its cards.", "example": True})
    cards = ma.fields.List(
        ma.fields.String(),
        allow_none=True,
        required=True,
        metadata={
            "description": "The three cards; null while not chosen or not yet visible to you "
            "(you see your own pass, what you received once the cards moved, and all passes once the round ends).",
            "example": ["QC", "KC", "AC"],
        },
    )


class AuditAccusationSchema(ma.Schema):
    accuser = ma.fields.Integer(required=True, validate=_SEAT, metadata={"example": 2})
    accused = ma.fields.Integer(required=True, validate=_SEAT, metadata={"example": 0})
    revoke_found = ma.fields.Boolean(required=True, metadata={"example": True})
    penalized_seat = ma.fields.Integer(required=True, validate=_SEAT, metadata={"example": 0})


class AuditRoundSchema(ma.Schema):
    round = ma.fields.Integer(required=True, metadata={"example": 1})
    pass_direction = DirectionField(required=True, metadata={"example": "left"})
    ended = Choice(
        "RoundEnd",
        ("tricks", "accusation", "resign", "abandon"),
        allow_none=True,
        required=True,
        metadata={"description": "How the round ended; null while it runs.", "example": "tricks"},
    )
    commitment = ma.fields.String(
        required=True,
        metadata={"description": "The deal commitment published when the round was dealt.", "example": _COMMITMENT},
    )
    deal = ma.fields.Nested(AuditDealSchema, required=True)
    commitment_ok = ma.fields.Boolean(
        allow_none=True,
        required=True,
        metadata={
            "description": "Whether SHA-256 of the revealed hands and salt equals the commitment; null while unrevealed.",
            "example": True,
        },
    )
    passes = ma.fields.List(
        ma.fields.Nested(AuditPassSchema),
        allow_none=True,
        required=True,
        metadata={
            "description": "One entry per seat; null in a round without passing.",
            "example": [{"seat": 0, "to": 1, "chosen": True, "cards": ["QS", "AS", "AH"]}],
        },
    )
    tricks = ma.fields.List(ma.fields.Nested(AuditTrickSchema), required=True, metadata={"description": "The completed tricks, in order."})
    current_trick = ma.fields.Nested(
        AuditTrickSchema,
        allow_none=True,
        required=True,
        metadata={"description": "The cards of an unfinished trick of a round that has not ended by its tricks or an accusation."},
    )
    points = ma.fields.List(
        ma.fields.Integer(),
        allow_none=True,
        required=True,
        metadata={"description": "The points added to the scores (a moon shows 0/26/26/26); null unless the round was scored.", "example": [3, 13, 6, 4]},
    )
    moon = ma.fields.Integer(allow_none=True, required=True, validate=_SEAT, metadata={"example": None})
    accusation = ma.fields.Nested(AuditAccusationSchema, allow_none=True, required=True)
    scores = ma.fields.List(
        ma.fields.Integer(),
        allow_none=True,
        required=True,
        metadata={"description": "The running match scores after this round.", "example": [3, 13, 6, 4]},
    )


class AuditMatchSchema(ma.Schema):
    match = ma.fields.Integer(required=True, metadata={"example": 1})
    status = Choice("MatchStatus", ("running", "finished"), required=True, metadata={"example": "finished"})
    rounds = ma.fields.List(ma.fields.Nested(AuditRoundSchema), required=True)
    scores = ma.fields.List(ma.fields.Integer(), required=True, metadata={"example": [78, 101, 61, 72]})
    result = ma.fields.Nested(ResultSchema, allow_none=True, required=True)


class AuditSeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, validate=_SEAT, metadata={"example": 0})
    name = ma.fields.String(allow_none=True, required=True, metadata={"example": "Ana"})
    kind = SeatKindField(metadata={"example": "human"})


class AuditSchema(ma.Schema):
    table_id = ma.fields.String(required=True, metadata={"example": "3f9a1c0b7d2e4a6f8b10"})
    version = ma.fields.Integer(required=True, metadata={"description": "The seq of the last event replayed.", "example": 642})
    status = StatusField(metadata={"example": "finished"})
    options = ma.fields.Nested(OptionsSchema, required=True)
    seats = ma.fields.List(ma.fields.Nested(AuditSeatSchema), required=True)
    matches = ma.fields.List(ma.fields.Nested(AuditMatchSchema), required=True, metadata={"description": "Every match of the table, oldest first."})


@blp.route("/<table_id>/audit", methods=["GET"])
@blp.response(200, AuditSchema)
@operation(blp, "getAudit")
def get_audit(table_id: str) -> dict[str, Any]:
    """The record rebuilt by replaying the stream: every round's deal, passes, tricks, points and scores.

    Each round's deal commitment is recomputed from the revealed hands and salt
    (`commitment_ok`). While a match runs, what you may not see yet is null.
    """
    return service().audit(access(table_id))
