"""Strong bots think off the request path: `copas worker` plays them, and a human's move returns at once."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from api.service.bots_worker import NICENESS, BotWorker, Thinker, ThinkerPool, shared_pool
from api.store.ports import NewEvent
from tests.conftest import TableDriver

T0 = datetime(2025, 1, 2, tzinfo=UTC)
QUICK = Thinker(budget=300, bot_seconds=None, hint_seconds=None)  # a small search, so whole matches run fast


def service_of(app: Any) -> Any:
    return app.extensions["copas"]["service"]


def strong_table(table: TableDriver, **options: object) -> tuple[str, str]:
    created = table.create(**options)
    response = table.post(created["table_id"], created["token"], "bots", {"level": "strong"})
    assert response.status_code == 201, response.json  # type: ignore[attr-defined]
    return created["table_id"], created["token"]


def test_the_store_lists_the_tables_whose_row_says_a_bot_is_due(store: Any) -> None:
    event = NewEvent("table_created", 0, {"name": "Ana"})
    with store.unit_of_work() as uow:
        for table_id in ("a", "b"):
            uow.create_table(table_id, f"invite-{table_id}", T0)
        uow.append("a", 0, [event], status="waiting", now=T0, bots_due=True)
        uow.append("b", 0, [event], status="waiting", now=T0)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.tables_awaiting_bots(10) == ["a"]
        assert uow.table_row("a").bots_due and not uow.table_row("b").bots_due
    with store.unit_of_work() as uow:
        uow.clear_bots_due("a", 0)  # an older version: the flag stays
        uow.commit()
    with store.unit_of_work() as uow:
        assert uow.tables_awaiting_bots(10) == ["a"]
        uow.clear_bots_due("a", 1)
        uow.commit()
    with store.unit_of_work(readonly=True) as uow:
        assert uow.tables_awaiting_bots(10) == []


def test_strong_bots_do_not_answer_inside_the_command_that_makes_them_due(table: TableDriver, app: Any) -> None:
    table_id, token = strong_table(table)
    view = table.view(table_id, token)
    assert view["status"] == "passing" and sorted(view["awaiting"]) == [0, 1, 2, 3]  # no bot passed inline
    assert service_of(app).tables_awaiting_bots(10) == [table_id]
    worker = BotWorker(service_of(app), QUICK)
    while worker.run_once():
        pass
    assert table.view(table_id, token)["awaiting"] == [0]
    assert service_of(app).tables_awaiting_bots(10) == []


def test_a_humans_move_returns_before_the_strong_bot_after_it_has_thought(table: TableDriver, app: Any) -> None:
    table_id, token = strong_table(table)
    worker = BotWorker(service_of(app), QUICK)
    table.pass_all(table_id, [token])
    while worker.run_once():
        pass
    view = table.view(table_id, token)
    while view["turn"] != 0 or len(view["trick"]["cards"]) == 3:  # seat 0 to play, not the trick's last card
        if view["turn"] == 0:
            table.post(table_id, token, "plays", {"card": view["you"]["legal_moves"][0]})
        else:
            assert worker.run_once() == 1
        view = table.view(table_id, token)
    moved = table.post(table_id, token, "plays", {"card": view["you"]["legal_moves"][0]})
    assert moved.status_code == 201
    assert moved.json["turn"] == 1  # seat 1 (strong) has not played yet: the worker will
    assert worker.run_once() == 1
    assert table.view(table_id, token)["version"] == moved.json["version"] + 1


def test_a_bot_that_thought_on_a_table_that_moved_on_thinks_again(table: TableDriver, app: Any) -> None:
    table_id, token = strong_table(table)
    service = service_of(app)
    human_pass = tuple(table.view(table_id, token)["you"]["legal_moves"][:3])

    class HumanFirst:
        """Lets the human pass while the bot is thinking."""

        def bot_move(self, view: Any, level: str, seed: int) -> Any:
            self.bot_move = QUICK.bot_move  # type: ignore[method-assign] # only the first time
            assert table.post(table_id, token, "passes", {"cards": list(human_pass)}).status_code == 201
            return QUICK.bot_move(view, level, seed)

    worker = BotWorker(service, HumanFirst())  # type: ignore[arg-type]
    assert worker.run_once() == 0  # its pass was for an older version: not posted
    assert sorted(table.view(table_id, token)["awaiting"]) == [1, 2, 3]
    while worker.run_once():
        pass
    assert table.view(table_id, token)["status"] == "playing"


def test_a_strong_bot_table_plays_a_whole_match_through_http_with_the_worker_running(table: TableDriver, app: Any) -> None:
    table_id, token = strong_table(table, target_score=50)
    worker = BotWorker(service_of(app), QUICK, idle_seconds=0.01)
    thread = worker.start()
    try:
        deadline = time.monotonic() + 120
        while (view := table.view(table_id, token))["status"] != "finished":
            assert time.monotonic() < deadline, "the match did not finish"
            legal = view["you"]["legal_moves"]
            if view["status"] == "passing" and legal:
                table.post(table_id, token, "passes", {"cards": legal[:3]})
            elif view["turn"] == 0:
                table.post(table_id, token, "plays", {"card": legal[0]})
            else:
                time.sleep(0.005)
    finally:
        worker.stop()
        thread.join(timeout=10)
    assert view["result"]["reason"] == "target"
    assert all(seat["kind"] == "bot" and seat["bot_level"] == "strong" for seat in view["seats"][1:])


def test_a_thinker_child_that_fails_is_replaced() -> None:
    pool = ThinkerPool(size=1, timeout=5.0)
    try:
        with pytest.raises(Exception) as refused:
            pool.call("no_such_thought")
        assert type(refused.value).__name__ == "ThinkerUnavailable"
        assert pool.call("hint", *_hint_args()) is not None  # a fresh child answers
    finally:
        pool.close()


def test_the_process_pool_is_shared_by_every_service_of_a_process() -> None:
    assert Thinker().pool is shared_pool() is Thinker().pool


def _hint_args() -> tuple[Any, ...]:
    from tests.bots.worlds import random_position
    from api.engine.bots.view import bot_view

    state = random_position(3, 10)
    return bot_view(state, state.awaiting[0]), 1, None, 200




def test_a_warmed_pool_has_its_children_waiting_before_the_first_call() -> None:
    pool = ThinkerPool(size=2)
    try:
        pool.warm().join(timeout=30)
        assert len(pool._idle) == 2
        assert pool.call("hint", *_hint_args()) is not None
        for child in pool._idle:  # searches yield the cores to requests
            assert os.getpriority(os.PRIO_PROCESS, child.process.pid) == os.getpriority(os.PRIO_PROCESS, 0) + NICENESS
        assert len(pool._idle) == 2  # the child went back to wait for the next call
    finally:
        pool.close()


def test_the_worker_moves_the_bots_of_several_tables_in_one_pass(table: TableDriver, app: Any) -> None:
    tables = [strong_table(table) for _ in range(3)]
    worker = BotWorker(service_of(app), QUICK)
    assert worker.concurrency == QUICK.pool.size
    assert worker.run_once() == 3  # one bot's pass at each table
    for table_id, token in tables:
        assert len(table.view(table_id, token)["awaiting"]) == 3
