"""A shooter who must choose how its moon is paid is told so: `your_turn` with `action: moon`."""

from __future__ import annotations

from api.engine.commands import PlayCard
from api.engine.rule_set import resolve
from api.service import notify
from tests.engine.test_rule_set_scenarios import CLUB_RUN, TRICK_1, TRICK_2, do, legal_moves, plays, table


def test_the_shooter_hears_your_turn_with_action_moon_once_the_last_trick_makes_its_moon() -> None:
    state = plays(table(resolve({"pass_cycle": "none", "moon": "shooter_chooses"}), CLUB_RUN), f"{TRICK_1} {TRICK_2}")
    while state.round.moon_choice is None:  # type: ignore[union-attr]
        before = state
        state = do(state, PlayCard(state.turn, legal_moves(state, state.turn)[0]))  # type: ignore[arg-type]
    planned = notify.plan("t1", before, state)
    assert [(n.seat, n.type, n.data["action"]) for n in planned] == [(0, "your_turn", "moon")]
    assert notify.plan("t1", state, state) == []  # announced once
