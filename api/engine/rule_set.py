"""The rule set of a table, declared once: every option of RULES.md section 9.

`RuleSet` is the one declaration, in the way OpenSpiel declares a game's
parameters: each field is an option, with its values, its default and a
one-line comment (`option(...)`). The games are named presets of it
(`GAMES`), and each game's scoring is data (`Scoring`: points per card, the
moon's cards and value, the revoke penalty). The web schemas, the OpenAPI
enums, the codec and the audit read `OPTIONS` rather than listing options
themselves.

A `RuleSet` holds resolved values: `resolve(given)` starts from the game's
preset, applies what the creator gave and refuses what section 9 refuses.
The rules read the derived facts (`seats`, `deck`, `pass_cycle_directions`,
`scoring`, ...) from it, so no rule knows which game it is playing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from enum import StrEnum
from functools import cached_property
from typing import Any

from .cards import DECK, HEARTS, QUEEN_OF_SPADES, Card, rank_value
from .errors import InvalidCommand


class Revoke(StrEnum):
    PREVENTED = "prevented"
    ALLOWED = "allowed"


class Tie(StrEnum):
    SHARE = "share"
    PLAY_ON = "play_on"


class Direction(StrEnum):
    LEFT = "left"  # seat s gives to s+1
    RIGHT = "right"  # seat s gives to s-1
    ACROSS = "across"  # seat s gives to s+2 (four players)
    LEFT2 = "left2"  # seat s gives to s+2 (five players)
    RIGHT2 = "right2"  # seat s gives to s-2 (five players)
    NONE = "none"  # no pass this round


class InvalidRuleSet(InvalidCommand):
    """An option, or a combination of options, that section 9 does not allow."""

    def __init__(self, field_name: str, detail: str) -> None:
        super().__init__(detail)
        self.field = field_name  # the option to name in the 422


def option(default: Any, values: tuple[Any, ...] | range, comment: str) -> Any:
    """One option of the declaration: its default, the values it may take, what it does."""
    return field(default=default, metadata={"values": values, "comment": comment})


GAME_NAMES = ("classic", "omnibus", "black_maria", "spot_hearts")
PLAYER_COUNTS = (4, 3, 5)
PASS_CYCLES = ("classic", "left", "right", "across", "none")
MOON_RULES = ("others_score", "shooter_subtracts", "shooter_chooses")
MOON_CHOICES = ("others_score", "shooter_subtracts")  # what a shooter may choose under `shooter_chooses`


@dataclass(frozen=True)
class RuleSet:
    """The options of a table, resolved: a field per option of RULES.md section 9."""

    target_score: int = option(100, range(25, 1001), "the match ends when a seat (or a team) reaches this score")
    revoke: Revoke = option(Revoke.PREVENTED, tuple(Revoke), "prevented: only legal cards; allowed: revokes, settled by accusations")
    tie: Tie = option(Tie.SHARE, tuple(Tie), "share: the tied lowest all win; play_on: play rounds until one leads alone")
    game: str = option("classic", GAME_NAMES, "the named game whose values the options not given take")
    players: int = option(4, PLAYER_COUNTS, "3: no 2D, 17 cards each; 5: no 2D nor 2C, 10 each, 3C opens")
    pass_cycle: str = option("classic", PASS_CYCLES, "classic: left, right, (across | left2, right2), none; or one direction every round")
    first_trick_points: str = option("forbidden", ("forbidden", "allowed"), "allowed: point cards may be played on trick 1")
    hearts_lead: str = option("after_broken", ("after_broken", "any_time"), "any_time: a heart may be led on any trick after the first")
    queen_breaks_hearts: bool = option(False, (False, True), "true: playing QS also breaks hearts")
    moon: str = option("others_score", MOON_RULES, "who pays for a moon: the others, the shooter subtracting, or the shooter's choice")
    jack_of_diamonds: int = option(0, (0, -10), "-10: the seat taking JD scores -10 for it")
    clean_hand_bonus: int = option(0, (0, -5), "-5: a seat that took no trick scores -5 for the round")
    partnerships: bool = option(False, (False, True), "4 players: seats 0 and 2 against 1 and 3, team totals decide")
    hints: bool = option(True, (True, False), "false: GET .../hint is refused at this table")

    # -- derived facts: what the rules read ------------------------------------------

    @cached_property
    def seats(self) -> tuple[int, ...]:
        return tuple(range(self.players))

    @cached_property
    def no_points(self) -> tuple[int, ...]:
        return (0,) * self.players

    @cached_property
    def deck(self) -> tuple[Card, ...]:
        # 3 players: without 2D; 5 players: without 2D and 2C (001, "modificação do baralho").
        removed = {3: {"2D"}, 5: {"2D", "2C"}}.get(self.players, set())
        return tuple(card for card in DECK if card not in removed)

    @cached_property
    def hand_size(self) -> int:
        return len(self.deck) // self.players  # 13, 17 or 10: also the tricks of a round

    @cached_property
    def opening_card(self) -> Card | None:
        """The card that opens trick 1 (its holder leads it), or None: the dealer's left leads any card."""
        if not GAMES[self.game].opening_card_leads:
            return None
        return "3C" if self.players == 5 else "2C"

    @cached_property
    def pass_cycle_directions(self) -> tuple[Direction, ...]:
        if self.pass_cycle != "classic":
            return (Direction(self.pass_cycle),)
        return {
            3: (Direction.LEFT, Direction.RIGHT, Direction.NONE),
            4: (Direction.LEFT, Direction.RIGHT, Direction.ACROSS, Direction.NONE),
            5: (Direction.LEFT, Direction.RIGHT, Direction.LEFT2, Direction.RIGHT2, Direction.NONE),
        }[self.players]

    @cached_property
    def scoring(self) -> Scoring:
        return GAMES[self.game].scoring.with_jack_of_diamonds(self.jack_of_diamonds)

    @cached_property
    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        # Partners sit across: seats 0 and 2 against 1 and 3.
        return ((0, 2), (1, 3)) if self.partnerships else None

    @cached_property
    def trick_one_points_forbidden(self) -> bool:
        return self.first_trick_points == "forbidden"

    @cached_property
    def hearts_wait_until_broken(self) -> bool:
        return self.hearts_lead == "after_broken"

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats on `seat`'s side: its team, or itself alone."""
        teams = self.teams
        if teams is None:
            return (seat,)
        return teams[seat % 2]


@dataclass(frozen=True)
class Scoring:
    """A game's scoring as data: points per card, the moon and the revoke penalty."""

    card_points: tuple[tuple[Card, int], ...]  # every card that scores, with its points
    moon_value: int  # what a moon is worth; also the revoke penalty

    @cached_property
    def points(self) -> dict[Card, int]:
        return dict(self.card_points)

    @cached_property
    def moon_cards(self) -> frozenset[Card]:
        """The moon: taking every card that scores positive points."""
        return frozenset(card for card, points in self.card_points if points > 0)

    @cached_property
    def moon_total(self) -> int:
        return sum(points for points in self.points.values() if points > 0)

    @property
    def revoke_penalty(self) -> int:
        return self.moon_value

    def with_jack_of_diamonds(self, points: int) -> Scoring:
        if not points:
            return self
        return Scoring(self.card_points + (("JD", points),), self.moon_value)


@dataclass(frozen=True)
class Game:
    """A named preset: the options it sets, its scoring, and how trick 1 opens."""

    name: str
    options: Mapping[str, Any]
    scoring: Scoring
    opening_card_leads: bool = True  # False: the seat left of the dealer leads trick 1 with any card


_HEARTS = tuple(card for card in DECK if card[1] == HEARTS)
_CLASSIC_SCORING = Scoring(tuple((card, 1) for card in _HEARTS) + ((QUEEN_OF_SPADES, 13),), 26)

GAMES: dict[str, Game] = {
    game.name: game
    for game in (
        Game("classic", {}, _CLASSIC_SCORING),
        Game("omnibus", {"jack_of_diamonds": -10}, _CLASSIC_SCORING),
        Game(
            "black_maria",
            {"pass_cycle": "right", "first_trick_points": "allowed", "hearts_lead": "any_time", "target_score": 150},
            Scoring(_CLASSIC_SCORING.card_points + (("KS", 10), ("AS", 7)), 43),
            opening_card_leads=False,
        ),
        Game(
            "spot_hearts",
            {"target_score": 500},
            Scoring(tuple((card, rank_value(card)) for card in _HEARTS) + ((QUEEN_OF_SPADES, 25),), 140),
        ),
    )
}
assert tuple(GAMES) == GAME_NAMES

OPTIONS: tuple[Field[Any], ...] = tuple(fields(RuleSet))
OPTION_NAMES: tuple[str, ...] = tuple(spec.name for spec in OPTIONS)
CLASSIC = RuleSet()


def values_of(spec: Field[Any]) -> tuple[Any, ...] | range:
    return spec.metadata["values"]


def comment_of(spec: Field[Any]) -> str:
    return spec.metadata["comment"]


def default_of(spec: Field[Any], game: str = "classic") -> Any:
    """The option's value when not given, in `game`."""
    preset = GAMES[game].options
    return preset[spec.name] if spec.name in preset else spec.default


def varies_by_game(spec: Field[Any]) -> bool:
    return any(spec.name in game.options for game in GAMES.values())


def resolve(given: Mapping[str, Any]) -> RuleSet:
    """The rule set from the options the creator gave: the game's values, then the given ones."""
    for name in given:
        if name not in OPTION_NAMES:
            raise InvalidRuleSet(name, f"{name!r} is not an option of this table")
    game = given.get("game", "classic")
    _check_value(OPTIONS[OPTION_NAMES.index("game")], game)
    values: dict[str, Any] = {}
    for spec in OPTIONS:
        value = given[spec.name] if spec.name in given else default_of(spec, game)
        values[spec.name] = _check_value(spec, value)
    rule_set = RuleSet(**values)
    check(rule_set)
    return rule_set


def check(rule_set: RuleSet) -> None:
    """Refuse the combinations section 9 refuses (and any value outside an option's)."""
    for spec in OPTIONS:
        _check_value(spec, getattr(rule_set, spec.name))
    if rule_set.pass_cycle == "across" and rule_set.players != 4:
        raise InvalidRuleSet("pass_cycle", "pass_cycle 'across' needs 4 players")
    if rule_set.partnerships and rule_set.players != 4:
        raise InvalidRuleSet("partnerships", "partnerships need 4 players")


def _check_value(spec: Field[Any], value: Any) -> Any:
    values = values_of(spec)
    kind = type(spec.default)
    # JSON's types, strictly: a boolean is not a number, a number is not text.
    same_type = isinstance(value, bool) if isinstance(spec.default, bool) else isinstance(value, kind if kind is int else str) and not isinstance(value, bool)
    if not same_type or value not in values:
        raise InvalidRuleSet(spec.name, f"{spec.name} is one of {_listed(values)}")
    return kind(value) if issubclass(kind, StrEnum) else value


def _listed(values: tuple[Any, ...] | range) -> str:
    if isinstance(values, range):
        return f"the whole numbers {values.start}..{values.stop - 1}"
    return ", ".join(_plain(value) for value in values)


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def as_plain(rule_set: RuleSet) -> dict[str, Any]:
    """Every option's value as JSON values (the view's `options`, the stored event)."""
    out: dict[str, Any] = {}
    for spec in OPTIONS:
        value = getattr(rule_set, spec.name)
        out[spec.name] = value.value if isinstance(value, StrEnum) else value
    return out


def from_plain(values: Mapping[str, Any]) -> RuleSet:
    """A rule set from its stored values; an option missing (older streams) takes the classic default."""
    kwargs = {}
    for spec in OPTIONS:
        value = values.get(spec.name, MISSING)
        if value is MISSING:
            continue
        kind = type(spec.default)
        kwargs[spec.name] = kind(value) if issubclass(kind, StrEnum) else value
    return RuleSet(**kwargs)
