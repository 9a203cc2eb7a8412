"""Whole matches end to end through HTTP: against bots, and between four people."""

from __future__ import annotations

import random
from typing import Any

from httpplay import Game


def assert_consistent_result(final: dict[str, Any], target: int) -> None:
    """Result, standings and history agree with each other and with the rules."""
    scores = [seat["score"] for seat in final["seats"]]
    history = final["history"]
    assert history, "a match to the target has completed rounds"
    # Every round hands out 26 points, or 78 when someone shot the moon.
    for number, entry in enumerate(history, start=1):
        assert entry["round"] == number
        expected = 78 if entry["moon"] is not None else 26
        assert sum(entry["points"]) == expected, entry
        if entry["moon"] is not None:
            assert entry["points"][entry["moon"]] == 0
    # The scores are the sums of the history's points, round by round.
    running = [0, 0, 0, 0]
    for entry in history:
        running = [total + points for total, points in zip(running, entry["points"], strict=True)]
        assert entry["scores"] == running
    assert running == scores
    # The match ended at the first round after which someone reached the target.
    assert max(scores) >= target
    assert all(max(entry["scores"]) < target for entry in history[:-1])
    result = final["result"]
    assert result["reason"] == "target"
    assert result["winners"] == [seat for seat in range(4) if scores[seat] == min(scores)]
    standings = result["standings"]
    assert [s["score"] for s in standings] == sorted(scores)
    assert sorted(s["seat"] for s in standings) == [0, 1, 2, 3]
    for s in standings:
        assert s["score"] == scores[s["seat"]]
        # Competition ranking: 1 + the number of seats with a strictly lower score.
        assert s["rank"] == 1 + sum(other < s["score"] for other in scores)
    assert final["turn"] is None and final["awaiting"] == []


def test_a_player_and_three_bots_play_a_match_to_the_end(client: Any) -> None:
    game = Game.with_bots(client)
    seats = game.view(0)["seats"]
    assert [seat["kind"] for seat in seats] == ["human", "bot", "bot", "bot"]

    final = game.play_to_end(random.Random(11))

    assert_consistent_result(final, target=100)
    # The stream holds 52 plays for every round played to its end.
    events = game.events(0)
    plays = [event for event in events if event["type"] == "card_played"]
    assert len(plays) == 52 * len(final["history"])
    assert [event["seq"] for event in events] == list(range(1, final["version"] + 1))
    # After the match every card is public: the events show every dealt hand.
    for event in events:
        if event["type"] == "round_dealt":
            assert all(hand is not None and len(hand) == 13 for hand in event["data"]["hands"])


def test_four_people_play_a_fifty_point_match_through_http_and_then_a_rematch(client: Any) -> None:
    game = Game.humans(client, target_score=50)
    first = game.view(0)
    assert first["status"] == "passing" and first["match"] == 1 and first["options"]["target_score"] == 50

    final = game.play_to_end(random.Random(5))

    assert_consistent_result(final, target=50)
    # Every seat sees the same result.
    for seat in range(4):
        assert game.view(seat)["result"] == final["result"]

    response = game.post(2, "rematch")
    assert response.status_code == 201, response.get_json()
    rematch = response.get_json()
    assert rematch["match"] == 2
    assert rematch["round"] == 1
    assert rematch["status"] == "passing"
    assert rematch["pass_direction"] == "left"
    assert rematch["history"] == []
    assert rematch["result"] is None
    assert [seat["score"] for seat in rematch["seats"]] == [0, 0, 0, 0]
    assert [seat["name"] for seat in rematch["seats"]] == [seat["name"] for seat in final["seats"]]
    assert rematch["options"] == final["options"]
    assert len(rematch["you"]["hand"]) == 13
