"""The request and response bodies, as marshmallow schemas (and so OpenAPI).

Every limit enforced here is stated in the document (lengths, patterns,
enums, ranges) so that a request matching the document is never refused
as invalid.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

import marshmallow as ma
from marshmallow import validate

from ..engine import rule_set
from ..engine.cards import CARD_PATTERN
from ..engine.hints import RULES, TIPS
from ..engine.rule_set import MOON_CHOICES
from ..engine.state import BOT_LEVELS, DECK_DESIGNS, Direction, EndReason, SeatKind, Status
from ..engine.viewers import Role

NAME_PATTERN = r"^[^\u0000-\u001f\u007f]+$"  # no NUL, no control characters
HEADER_TEXT_PATTERN = r"^[\u0020-\u007e]*$"  # header values: visible ASCII and spaces
# http(s), a host name or a bracketed IPv6 address (no credentials), an optional port, then no spaces or controls
WEBHOOK_URL_PATTERN = r"^https?://(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:[/?#][^\u0000-\u0020\u007f]*)?$"
SEAT_RANGE = validate.Range(min=0, max=max(rule_set.PLAYER_COUNTS) - 1)  # seats 0..players-1
EXAMPLE_HAND = ["2C", "7C", "KC", "3D", "9D", "QD", "4H", "8H", "JH", "AH", "5S", "QS", "AS"]


def _storable_text(value: str) -> None:
    # Lone surrogates cannot be stored by any database; refuse them as invalid text.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ma.ValidationError("Text must be valid Unicode (no lone surrogates).") from error


def Name(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=[validate.Length(min=1, max=40), validate.Regexp(NAME_PATTERN), _storable_text],
        **kwargs,
    )


def CardField(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(validate=validate.Regexp(CARD_PATTERN), **kwargs)


def _unique(values: list[Any]) -> None:
    if len(set(values)) != len(values):
        raise ma.ValidationError("Items must be distinct.")


def _cards(**kwargs: Any) -> ma.fields.List:
    return ma.fields.List(CardField(), **kwargs)


CHOICES: dict[str, tuple[str, ...]] = {}  # every closed set: its component name and values


class Choice(ma.fields.String):
    """A string from a closed set, documented once as the component `name` (clients get one enum type)."""

    def __init__(self, name: str, values: Iterable[str | Enum], **kwargs: Any) -> None:
        self.component = name
        self.values = tuple(value.value if isinstance(value, Enum) else value for value in values)
        if CHOICES.setdefault(name, self.values) != self.values:
            raise ValueError(f"the closed set {name} is declared twice with different values")
        super().__init__(validate=validate.OneOf(self.values), **kwargs)


def StatusField(**kwargs: Any) -> Choice:
    return Choice("Status", Status, required=True, **kwargs)


def RoleField(**kwargs: Any) -> Choice:
    return Choice("Role", Role, required=True, **kwargs)


def SeatKindField(**kwargs: Any) -> Choice:
    return Choice("SeatKind", SeatKind, required=True, **kwargs)


def DirectionField(**kwargs: Any) -> Choice:
    return Choice("PassDirection", Direction, **kwargs)


def BotLevelField(**kwargs: Any) -> Choice:
    return Choice("BotLevel", BOT_LEVELS, **kwargs)


def DeckDesignField(**kwargs: Any) -> Choice:
    return Choice("DeckDesign", DECK_DESIGNS, **kwargs)


class JsonInteger(ma.fields.Integer):
    """An integer as JSON Schema counts one: 3 and 3.0 are, "3", 3.5 and true are not."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return value


class JsonBoolean(ma.fields.Boolean):
    """A boolean as JSON Schema counts one: true and false, not "true" nor 1."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


def option_field(spec: Any, *, request: bool) -> ma.fields.Field:
    """The schema field of one option of the rule set, from its declaration (values, default, comment).

    In a request every option is optional (one not given takes the game's
    value); in a response every option is there, resolved.
    """
    values = rule_set.values_of(spec)
    default = spec.default
    if isinstance(values, range):
        check = validate.Range(min=values.start, max=values.stop - 1)
    else:
        check = validate.OneOf([value.value if isinstance(value, rule_set.StrEnum) else value for value in values])
    plain_default = default.value if isinstance(default, rule_set.StrEnum) else default
    description = rule_set.comment_of(spec)
    if request:
        if rule_set.varies_by_game(spec):
            by_game = ", ".join(f"{game} {_json(rule_set.default_of(spec, game))}" for game in rule_set.GAME_NAMES)
            description += f". Default: the game's ({by_game})."
        else:
            description += f". Default: {_json(plain_default)}."
    metadata = {"description": description, "example": plain_default}
    if isinstance(default, str):  # a closed set of names: one enum component, named after its enum or the option
        name = type(default).__name__ if isinstance(default, rule_set.StrEnum) else spec.name.title().replace("_", "")
        return Choice(name, check.choices, required=not request, metadata=metadata)
    kind = JsonBoolean if isinstance(default, bool) else JsonInteger
    if not request:
        kind = ma.fields.Boolean if isinstance(default, bool) else ma.fields.Integer
    return kind(required=not request, validate=check, metadata=metadata)


def _json(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def option_fields(*, request: bool) -> dict[str, ma.fields.Field]:
    """A field for every option of the rule set, in its declared order."""
    return {spec.name: option_field(spec, request=request) for spec in rule_set.OPTIONS}


class StrictSchema(ma.Schema):
    """Unknown fields are refused; body integers are JSON integers (no "3", no 1.5)."""

    class Meta:
        unknown = ma.RAISE


# -- requests ------------------------------------------------------------------


CreateTableSchema = type(
    "CreateTableSchema",
    (StrictSchema,),
    {
        "__doc__": "A new table: your name, and any options of the rule set (the others take the game's values).",
        "name": Name(required=True, metadata={"description": "Your name: the creator takes seat 0.", "example": "Ana"}),
        **option_fields(request=True),
    },
)


class JoinSchema(StrictSchema):
    name = Name(required=True, metadata={"example": "Bruno"})


class BotsSchema(StrictSchema):
    seats = ma.fields.List(
        JsonInteger(validate=SEAT_RANGE),
        validate=[validate.Length(min=1, max=4), _unique],
        metadata={"description": "The seats to fill; omit for every empty seat.", "example": [2, 3], "uniqueItems": True},
    )
    level = BotLevelField(
        load_default="basic",
        metadata={"description": "basic: fast rule-based; strong: Monte Carlo search.", "example": "basic"},
    )


class PassSchema(StrictSchema):
    cards = _cards(
        required=True,
        validate=[validate.Length(equal=3), _unique],
        metadata={"description": "Three distinct cards from the hand you were dealt.", "example": ["QS", "AS", "AH"], "uniqueItems": True},
    )


class PlaySchema(StrictSchema):
    card = CardField(required=True, metadata={"description": "A card from your hand.", "example": "2C"})


class AccusationSchema(StrictSchema):
    seat = JsonInteger(required=True, validate=SEAT_RANGE, metadata={"description": "The accused seat.", "example": 2})


class ChooseMoonSchema(StrictSchema):
    choice = Choice(
        "MoonChoice",
        MOON_CHOICES,
        required=True,
        metadata={"description": "How your moon is paid: others_score (each other seat scores the moon value) or shooter_subtracts (you subtract it).", "example": "others_score"},
    )


class PreferencesSchema(StrictSchema):
    name = Name(metadata={"example": "Ana"})
    deck_design = DeckDesignField(
        metadata={"description": "How your own screen draws the cards; never changes the rules.", "example": "four-color"},
    )
    webhook_url = ma.fields.String(
        allow_none=True,
        validate=[validate.Length(min=1, max=2048), validate.Regexp(WEBHOOK_URL_PATTERN), _storable_text],
        metadata={"description": "Where to POST your notifications (http or https); null removes the webhook.", "example": "https://example.com/copas-hook"},
    )


class WaitQuerySchema(StrictSchema):
    wait = ma.fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=30),
        metadata={"description": "With If-None-Match: hold the request up to this many seconds until the view changes.", "example": 10},
    )


MAX_VERSION = 2**31 - 1  # the events' seq column is an INTEGER


class StreamQuerySchema(StrictSchema):
    after_version = ma.fields.Integer(
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={"description": "The last version you saw: the stream sends the view at once only if it changed since.", "example": 42},
    )


class StreamHeadersSchema(ma.Schema):
    class Meta:
        unknown = ma.EXCLUDE

    last_event_id = ma.fields.Integer(
        data_key="Last-Event-ID",
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={"description": "The `id` of the last message received (a version): resume after it. Wins over after_version.", "example": 42},
    )


STREAM_MESSAGE = {
    "type": "object",
    "description": "One Server-Sent Events message (comments such as `: keep-alive` carry no event).",
    "properties": {
        "event": {"type": "string", "enum": ["view"]},
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The view's version."},
        "data": {
            "type": "string",
            "description": "This viewer's view (TableView, as GET /v1/tables/{id} answers it) as one line of JSON.",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": "#/components/schemas/TableView"},
        },
    },
    "required": ["event", "id", "data"],
}


class EventsQuerySchema(StrictSchema):
    after = ma.fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1), metadata={"example": 0})
    limit = ma.fields.Integer(load_default=100, validate=validate.Range(min=1, max=500), metadata={"example": 100})


class MoveHeadersSchema(ma.Schema):
    class Meta:
        unknown = ma.EXCLUDE

    if_match = ma.fields.String(
        data_key="If-Match",
        validate=[validate.Length(max=200), validate.Regexp(HEADER_TEXT_PATTERN)],
        metadata={"description": "The ETag or version you saw: refused with 412 if the table moved on.", "example": '"12"'},
    )
    idempotency_key = ma.fields.String(
        data_key="Idempotency-Key",
        validate=[validate.Length(min=1, max=255), validate.Regexp(r"^[\u0021-\u007e]+$")],
        metadata={"description": "A retry with the same key and body within 24 h returns the first response.", "example": "7b1f7c1e-play-2C"},
    )


# -- responses -----------------------------------------------------------------


class Extensible(ma.Schema):
    """A response other answers extend (`allOf` it and their own fields), so it cannot forbid other properties."""

    class Meta:
        unknown = ma.EXCLUDE


class AdmissionSchema(Extensible):
    """What joining a table gives you: your seat (or spectator number) and your token."""

    table_id = ma.fields.String(required=True, metadata={"example": "3f9a1c0b7d2e4a6f8b10"})
    role = RoleField(metadata={"example": "player"})
    seat = ma.fields.Integer(allow_none=True, required=True, metadata={"description": "Your seat; null for a spectator.", "example": 1})
    spectator = ma.fields.Integer(allow_none=True, required=True, metadata={"description": "Your spectator number; null for a player.", "example": None})
    token = ma.fields.String(required=True, metadata={"description": "Your bearer token, shown once.", "example": "f0Yx3...secret"})


class CreateTableAnswerSchema(AdmissionSchema):
    """What creating a table gives you: seat 0, your token, and the invite link to share."""

    invite_code = ma.fields.String(required=True, metadata={"example": "kq3V0m9yXc2bq1Z7Lw4nPA"})
    invite_url = ma.fields.String(
        required=True,
        metadata={"description": "The link to share: GET it to see the table, POST …/join to join.", "example": "http://127.0.0.1:8000/v1/invites/kq3V0m9yXc2bq1Z7Lw4nPA"},
    )


OptionsSchema = type(
    "OptionsSchema",
    (ma.Schema,),
    {"__doc__": "The table's rule set: the game and every option's resolved value.", **option_fields(request=False)},
)


class SeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"example": 1})
    name = ma.fields.String(allow_none=True, metadata={"example": "Bruno"})
    kind = SeatKindField(metadata={"example": "human"})
    bot_level = BotLevelField(allow_none=True, metadata={"description": "A bot's level; null for a human or an empty seat.", "example": None})
    score = ma.fields.Integer(required=True, metadata={"description": "Match score from completed rounds.", "example": 23})
    round_points = ma.fields.Integer(required=True, metadata={"description": "Points taken so far this round.", "example": 4})
    tricks_taken = ma.fields.Integer(required=True, metadata={"example": 2})
    hand_size = ma.fields.Integer(required=True, metadata={"example": 11})
    has_passed = ma.fields.Boolean(required=True, metadata={"example": True})


class SpectatorSchema(ma.Schema):
    spectator = ma.fields.Integer(required=True, metadata={"example": 1})
    name = ma.fields.String(required=True, metadata={"example": "Carla"})


class PlayedCardSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"example": 0})
    card = ma.fields.String(required=True, metadata={"example": "2C"})


class TrickSchema(ma.Schema):
    number = ma.fields.Integer(required=True, metadata={"example": 3})
    leader = ma.fields.Integer(required=True, metadata={"example": 1})
    cards = ma.fields.List(ma.fields.Nested(PlayedCardSchema), required=True)
    winner = ma.fields.Integer(metadata={"description": "Set on a completed trick.", "example": 2})
    round = ma.fields.Integer(metadata={"description": "The round of a completed trick.", "example": 1})


class AccusationResultSchema(ma.Schema):
    accuser = ma.fields.Integer(required=True, metadata={"example": 1})
    accused = ma.fields.Integer(required=True, metadata={"example": 3})
    revoke_found = ma.fields.Boolean(required=True, metadata={"example": True})
    penalized_seat = ma.fields.Integer(required=True, metadata={"example": 3})


class HistorySchema(ma.Schema):
    round = ma.fields.Integer(required=True, metadata={"example": 1})
    points = ma.fields.List(ma.fields.Integer(), required=True, metadata={"example": [0, 26, 26, 26]})
    moon = ma.fields.Integer(allow_none=True, required=True, metadata={"example": 0})
    accusation = ma.fields.Nested(
        AccusationResultSchema,
        allow_none=True,
        required=True,
        metadata={"description": "The accusation that ended the round, if any.", "example": None},
    )
    scores = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "Match scores after this round.", "example": [0, 26, 26, 26]})


class StandingSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"example": 2})
    score = ma.fields.Integer(required=True, metadata={"example": 61})
    rank = ma.fields.Integer(required=True, metadata={"example": 1})


class TeamStandingSchema(ma.Schema):
    seats = ma.fields.List(ma.fields.Integer(), required=True, metadata={"example": [0, 2]})
    score = ma.fields.Integer(required=True, metadata={"description": "The team's total.", "example": 88})
    rank = ma.fields.Integer(required=True, metadata={"example": 1})


class ResultSchema(ma.Schema):
    reason = Choice("EndReason", EndReason, required=True, metadata={"example": "target"})
    winners = ma.fields.List(ma.fields.Integer(), required=True, metadata={"example": [2]})
    losers = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "Seats that resigned or were awaited at an abandonment.", "example": []})
    standings = ma.fields.List(ma.fields.Nested(StandingSchema), required=True, metadata={"description": "With partnerships a seat's rank is its team's."})
    teams = ma.fields.List(ma.fields.Nested(TeamStandingSchema), metadata={"description": "With partnerships only: each team's total and rank."})


class TeamSchema(ma.Schema):
    seats = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "Partners sit across.", "example": [0, 2]})
    score = ma.fields.Integer(required=True, metadata={"description": "The team's match score: its seats' scores summed.", "example": 45})
    round_points = ma.fields.Integer(required=True, metadata={"description": "The team's points taken so far this round.", "example": 3})


class MoonChoiceDueSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"description": "The shooter, who must choose.", "example": 2})
    choices = ma.fields.List(
        Choice("MoonChoice", MOON_CHOICES), required=True, metadata={"example": list(MOON_CHOICES)}
    )


class PassInfoSchema(ma.Schema):
    direction = DirectionField(required=True, metadata={"example": "left"})
    given = ma.fields.List(ma.fields.String(), allow_none=True, required=True, metadata={"example": ["QS", "AS", "AH"]})
    received = ma.fields.List(ma.fields.String(), allow_none=True, required=True, metadata={"example": None})


class YouSchema(ma.Schema):
    role = RoleField(metadata={"example": "player"})
    seat = ma.fields.Integer(allow_none=True, metadata={"example": 0})
    spectator = ma.fields.Integer(allow_none=True, metadata={"example": None})
    name = ma.fields.String(allow_none=True, metadata={"example": "Ana"})
    hand = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "Sorted by suit C D H S, then rank.", "example": EXAMPLE_HAND})
    legal_moves = ma.fields.List(ma.fields.String(), required=True, metadata={"example": ["2C"]})
    playable = ma.fields.List(ma.fields.String(), required=True, metadata={"description": "legal_moves plus revoking cards on revoke-allowed tables.", "example": ["2C"]})
    pass_ = ma.fields.Nested(
        PassInfoSchema,
        data_key="pass",
        attribute="pass",
        allow_none=True,
        required=True,
        metadata={"description": "Your pass this round; null in a round without passing and for spectators.", "example": {"direction": "left", "given": ["QS", "AS", "AH"], "received": None}},
    )
    deck_design = DeckDesignField(required=True, metadata={"example": "classic"})


class TableViewSchema(Extensible):
    table_id = ma.fields.String(required=True, metadata={"example": "3f9a1c0b7d2e4a6f8b10"})
    version = ma.fields.Integer(required=True, metadata={"description": "Seq of the table's last event.", "example": 42})
    status = StatusField(metadata={"example": "playing"})
    options = ma.fields.Nested(OptionsSchema, required=True)
    match = ma.fields.Integer(allow_none=True, required=True, metadata={"example": 1})
    round = ma.fields.Integer(allow_none=True, required=True, metadata={"example": 2})
    pass_direction = DirectionField(allow_none=True, required=True, metadata={"description": "This round's pass; null before the first deal.", "example": "right"})
    hearts_broken = ma.fields.Boolean(required=True, metadata={"example": False})
    seats = ma.fields.List(ma.fields.Nested(SeatSchema), required=True, metadata={"description": "One entry per seat (3, 4 or 5)."})
    teams = ma.fields.List(
        ma.fields.Nested(TeamSchema),
        allow_none=True,
        metadata={"description": "With partnerships: seats 0 and 2 against 1 and 3; null otherwise.", "example": None},
    )
    moon_choice = ma.fields.Nested(
        MoonChoiceDueSchema,
        allow_none=True,
        metadata={"description": "Under moon: shooter_chooses, the choice the table waits for (POST .../moon); null otherwise.", "example": None},
    )
    spectators = ma.fields.List(ma.fields.Nested(SpectatorSchema), required=True)
    turn = ma.fields.Integer(allow_none=True, required=True, metadata={"example": 3})
    awaiting = ma.fields.List(ma.fields.Integer(), required=True, metadata={"example": [3]})
    awaiting_since = ma.fields.DateTime(allow_none=True, required=True, metadata={"example": "2026-11-29T18:00:00+00:00"})
    trick = ma.fields.Nested(
        TrickSchema,
        allow_none=True,
        required=True,
        metadata={"description": "The trick being played (between tricks: the next, empty one).", "example": {"number": 3, "leader": 1, "cards": [{"seat": 1, "card": "9D"}]}},
    )
    last_trick = ma.fields.Nested(
        TrickSchema,
        allow_none=True,
        required=True,
        metadata={"description": "The last completed trick.", "example": {"number": 2, "leader": 0, "cards": [{"seat": 0, "card": "KC"}, {"seat": 1, "card": "2C"}, {"seat": 2, "card": "5C"}, {"seat": 3, "card": "TC"}], "winner": 0}},
    )
    history = ma.fields.List(ma.fields.Nested(HistorySchema), required=True)
    result = ma.fields.Nested(
        ResultSchema,
        allow_none=True,
        required=True,
        metadata={"description": "Null while the match runs.", "example": None},
    )
    deal_commitment = ma.fields.String(allow_none=True, required=True, metadata={"description": "SHA-256 of the current deal and salt.", "example": "9f2c" + "0" * 60})
    you = ma.fields.Nested(YouSchema, required=True)
    updated_at = ma.fields.DateTime(allow_none=True, metadata={"example": "2026-11-29T18:00:00+00:00"})


class AccusationAnswerSchema(TableViewSchema):
    revoke_found = ma.fields.Boolean(required=True, metadata={"example": True})
    penalized_seat = ma.fields.Integer(required=True, metadata={"example": 3})


class PreferencesAnswerSchema(TableViewSchema):
    webhook_secret = ma.fields.String(
        metadata={"description": "The signing secret of the webhook just set, shown once.", "example": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
    )


class InvitationSeatSchema(ma.Schema):
    seat = ma.fields.Integer(required=True, metadata={"example": 1})
    name = ma.fields.String(allow_none=True, required=True, metadata={"example": "Bruno"})
    kind = SeatKindField(metadata={"example": "empty"})


class InvitationSchema(ma.Schema):
    table_id = ma.fields.String(required=True, metadata={"example": "3f9a1c0b7d2e4a6f8b10"})
    status = StatusField(metadata={"example": "waiting"})
    options = ma.fields.Nested(OptionsSchema, required=True)
    seats = ma.fields.List(ma.fields.Nested(InvitationSeatSchema), required=True)
    open_seats = ma.fields.Integer(required=True, metadata={"description": "Seats a joiner can still take.", "example": 2})
    joins_as = RoleField(
        metadata={"description": "What joining now makes you.", "example": "player"},
    )
    join_url = ma.fields.String(required=True, metadata={"description": "POST here with {name} to join.", "example": "http://127.0.0.1:8000/v1/invites/kq3V0m9yXc2bq1Z7Lw4nPA/join"})


class EventSchema(ma.Schema):
    """One event of the stream (documented as the union of every event type, told apart by `type`)."""

    seq = ma.fields.Integer(required=True, metadata={"example": 7})
    type = ma.fields.String(required=True, metadata={"example": "card_played"})
    at = ma.fields.DateTime(required=True, metadata={"example": "2026-11-29T18:00:00+00:00"})
    seat = ma.fields.Integer(allow_none=True, required=True, metadata={"example": 1})
    data = ma.fields.Dict(required=True, metadata={"description": "The event's fields; hidden ones are null until public.", "example": {"card": "2C"}})


class EventPageSchema(ma.Schema):
    events = ma.fields.List(ma.fields.Nested(EventSchema), required=True)
    next_after = ma.fields.Integer(required=True, metadata={"example": 7})


class HealthSchema(ma.Schema):
    status = Choice("HealthStatus", ("ok", "degraded"), required=True, metadata={"example": "ok"})
    database = ma.fields.Boolean(required=True, metadata={"example": True, "description": "The database answered within 1.5 s."})
    listener = Choice(
        "ListenerState",
        ("connected", "reconnecting", "not_started", "not_used"),
        required=True,
        metadata={
            "example": "connected",
            "description": "How long polls hear of other nodes' moves: `connected` (PostgreSQL LISTEN/NOTIFY), "
            "`reconnecting` (polling until it is back), `not_started` (no long poll yet), `not_used` (SQLite polls).",
        },
    )
    waiters = ma.fields.Integer(required=True, metadata={"description": "Long polls and streams waiting in this process.", "example": 12})


class LivenessSchema(ma.Schema):
    status = Choice("LivenessStatus", ("ok",), required=True, metadata={"example": "ok"})


# -- hints ----------------------------------------------------------------------


class HintReasonSchema(ma.Schema):
    tip = Choice(
        "HintTip",
        (*TIPS, *RULES),
        required=True,
        metadata={"description": "A stable id: one of the tips (000's beginner tips; moon_choice for how a moon is paid) or of the rules.", "example": "duck_under"},
    )
    text = ma.fields.String(
        required=True,
        metadata={"description": "The reason in one sentence, in the language asked for.", "example": "Duck with QD, your highest card in diamonds that still loses to AD on the table."},
    )


class HintSchema(ma.Schema):
    action = Choice("HintAction", ("pass", "play", "moon"), required=True, metadata={"example": "play"})
    cards = ma.fields.List(
        CardField(),
        required=True,
        metadata={"description": "The cards to pass (three) or to play (one); empty for a moon choice.", "example": ["QD"]},
    )
    choice = Choice(
        "MoonChoice",
        MOON_CHOICES,
        allow_none=True,
        required=True,
        metadata={"description": "The moon choice to make (null when passing or playing).", "example": None},
    )
    reasons = ma.fields.List(ma.fields.Nested(HintReasonSchema), required=True)
