"""The tournament is reproducible from its seed."""

from __future__ import annotations

import pytest

from api import tournament


def run_lines(capsys, argv: list[str]) -> list[str]:
    assert tournament.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    return [line for line in out if not line.startswith("time ")]


def test_the_same_seed_gives_the_same_numbers(capsys) -> None:
    argv = ["--players", "strong,basic,random,random", "--deals", "2", "--seed", "11", "--budget", "600", "--no-progress"]
    first = run_lines(capsys, argv)
    second = run_lines(capsys, argv)
    assert first == second
    assert any(line.startswith("P0     strong") for line in first)


def test_another_seed_gives_other_deals() -> None:
    one = tournament.run(("basic", "random", "random", "random"), 3, seed=1)
    two = tournament.run(("basic", "random", "random", "random"), 3, seed=2)
    assert one.per_deal != two.per_deal


def test_every_round_scores_26_points_or_a_moon() -> None:
    summary = tournament.run(("random", "basic", "random", "basic"), 4, seed=3)
    for deal in summary.per_deal:
        # Four rounds of 26 points each, or 78 for a round with a moon.
        total = round(sum(deal) * 4)
        assert 104 <= total <= 312 and (total - 104) % 52 == 0


def test_the_command_line_rejects_an_unknown_player_kind() -> None:
    with pytest.raises(SystemExit):
        tournament.main(["--players", "strong,basic,basic,genius"])
