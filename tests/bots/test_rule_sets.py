"""Bots on every rule set: whole rounds of every game, the moon's payment, the tournament's --game and player count."""

from __future__ import annotations

import random

import pytest

from api import tournament
from api.engine import apply, decide
from api.engine.bots import basic, strong
from api.engine.bots.view import BotView, bot_view
from api.engine.commands import ChooseMoon, ChoosePass, Command, PlayCard
from api.engine.rule_set import GAME_NAMES, PLAYER_COUNTS, RuleSet, resolve
from api.engine.state import Direction, Trick

from .worlds import CONTEXT, T0, dealt_table

WHOLE_ROUNDS = [{"game": game, "players": players} for game in GAME_NAMES for players in PLAYER_COUNTS] + [
    {"game": "omnibus", "partnerships": True, "moon": "shooter_chooses", "clean_hand_bonus": -5},
    {"game": "spot_hearts", "players": 5, "queen_breaks_hearts": True, "moon": "shooter_subtracts"},
    {"game": "black_maria", "players": 3, "first_trick_points": "forbidden", "hearts_lead": "after_broken"},
]


@pytest.mark.parametrize("given", WHOLE_ROUNDS, ids=lambda given: "-".join(str(value) for value in given.values()))
def test_the_strong_bot_plays_a_whole_round_of_legal_cards_at_every_seat(given: dict) -> None:
    rules = resolve(given)
    policy = strong.StrongPolicy(budget=400)
    state = dealt_table(sum(map(ord, str(given))), 1, rules=rules)
    rng = random.Random(1)
    while not state.match.history:
        seat = state.awaiting[0]
        view = bot_view(state, seat)
        assert view is not None
        if view.phase == "moon":
            command: Command = ChooseMoon(seat, basic.choose_moon(view))
        elif view.phase == "pass":
            command = ChoosePass(seat, policy.choose_pass(view, rng))
        else:
            card = policy.choose_play(view, rng)
            assert card in view.legal
            command = PlayCard(seat, card)
        state = apply(state, decide(state, command, CONTEXT), T0)  # a RuleViolation would fail the test
    assert len(state.match.history[0].round.tricks) == rules.hand_size


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
