"""The rule set is declared once; games are presets of it; the creator's options override them."""

from __future__ import annotations

import pytest

from api.engine import rule_set
from api.engine.rule_set import CLASSIC, GAMES, InvalidRuleSet, RuleSet, resolve
from api.store import codec
from api.store.ports import StoredEvent


def test_every_option_declares_its_values_its_default_and_a_comment() -> None:
    for spec in rule_set.OPTIONS:
        assert spec.default in rule_set.values_of(spec), spec.name
        assert rule_set.comment_of(spec), spec.name


def test_a_table_with_no_options_is_the_classic_four_player_table_with_hints() -> None:
    assert resolve({}) == CLASSIC == RuleSet()
    assert CLASSIC.players == 4 and CLASSIC.hand_size == 13 and CLASSIC.opening_card == "2C"
    assert CLASSIC.hints is True and CLASSIC.scoring.moon_value == 26 and CLASSIC.scoring.revoke_penalty == 26


def test_each_game_names_its_preset_and_its_scoring() -> None:
    assert resolve({"game": "omnibus"}).jack_of_diamonds == -10
    maria = resolve({"game": "black_maria"})
    assert (maria.pass_cycle, maria.first_trick_points, maria.hearts_lead, maria.target_score) == ("right", "allowed", "any_time", 150)
    assert maria.scoring.points["KS"] == 10 and maria.scoring.points["AS"] == 7 and maria.scoring.moon_value == 43
    assert maria.scoring.moon_total == 43 and maria.opening_card is None
    spots = resolve({"game": "spot_hearts"})
    assert spots.scoring.points["AH"] == 14 and spots.scoring.points["QS"] == 25 and spots.target_score == 500
    assert spots.scoring.moon_value == 140 and spots.scoring.moon_total == 129
    assert set(GAMES) == set(rule_set.GAME_NAMES)


def test_an_option_given_explicitly_overrides_the_games_value() -> None:
    assert resolve({"game": "spot_hearts", "target_score": 250}).target_score == 250


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"colour": "red"}, "colour"),
        ({"target_score": 24}, "target_score"),
        ({"target_score": 1001}, "target_score"),
        ({"target_score": True}, "target_score"),
        ({"revoke": "sometimes"}, "revoke"),
        ({"hints": "yes"}, "hints"),
        ({"game": "bridge"}, "game"),
    ],
)
def test_an_unknown_option_or_value_is_refused_naming_the_field(given: dict, field: str) -> None:
    with pytest.raises(InvalidRuleSet) as refused:
        resolve(given)
    assert refused.value.field == field and refused.value.code == "validation_error"


def test_a_stream_written_before_rule_sets_replays_as_a_classic_table() -> None:
    from datetime import UTC, datetime

    old = StoredEvent(1, "table_created", 1, 0, datetime(2025, 1, 1, tzinfo=UTC), {"name": "Ana", "options": {"target_score": 50, "revoke": "allowed", "tie": "share"}})
    options = codec.decode(old).event.options
    assert options == RuleSet(target_score=50, revoke=rule_set.Revoke.ALLOWED)
    assert codec.encode(codec.decode(old).event).data["options"] == rule_set.as_plain(options)
