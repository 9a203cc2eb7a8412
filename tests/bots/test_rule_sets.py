"""Bots on every rule set: the moon's payment, and the tournament's --game and player count."""

from __future__ import annotations

import pytest

from api import tournament
from api.engine.bots import basic
from api.engine.bots.view import BotView
from api.engine.rule_set import RuleSet, resolve
from api.engine.state import Direction, Trick


def moon_view(rules: RuleSet, scores: tuple[int, ...], seat: int = 0) -> BotView:
    return BotView(
        seat=seat, phase="moon", hand=(), legal=(), direction=Direction.NONE, trick=Trick(14, seat), tricks=(),
        passed=None, received=None, taken=rules.no_points, scores=scores, hearts_broken=True,
        target_score=rules.target_score, rules=rules,
    )


def test_a_bot_shooter_takes_others_score_on_equal_footing() -> None:
    # 0/26/26/26 or -26/0/0/0: the same margins and rank, so others_score.
    assert basic.choose_moon(moon_view(resolve({"moon": "shooter_chooses"}), (10, 20, 30, 40))) == "others_score"


def test_a_bot_shooter_subtracts_when_the_others_scoring_would_end_the_match_with_it_behind() -> None:
    # others_score: 90+0 against 60+26: the match ends at 100 with seat 1 ahead; subtracting keeps it going.
    rules = resolve({"moon": "shooter_chooses"})
    assert basic.choose_moon(moon_view(rules, (90, 60, 70, 80))) == "shooter_subtracts"


def test_a_bot_shooter_ends_the_match_as_the_winner_when_it_can() -> None:
    rules = resolve({"moon": "shooter_chooses"})
    assert basic.choose_moon(moon_view(rules, (10, 80, 75, 90))) == "others_score"


@pytest.mark.parametrize(("game", "players"), [("black_maria", "basic,random,random"), ("spot_hearts", "strong,basic,random,random,basic")])
def test_the_tournament_plays_any_game_with_three_to_five_players(capsys, game: str, players: str) -> None:
    argv = ["--game", game, "--players", players, "--deals", "2", "--seed", "5", "--budget", "300", "--no-progress"]
    assert tournament.main(argv) == 0
    out = capsys.readouterr().out
    assert f"game {game}, {len(players.split(','))} players" in out
    assert out.count("\nP") == len(players.split(","))


def test_the_tournament_refuses_a_game_that_cannot_seat_its_players() -> None:
    with pytest.raises(SystemExit):
        tournament.main(["--players", "basic,basic", "--deals", "1"])
