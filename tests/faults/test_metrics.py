"""/metrics: what an operator scrapes (Prometheus text), fed by the requests and by hooks."""

from __future__ import annotations

import random
from typing import Any

from httpplay import Game
from prometheus_client.parser import text_string_to_metric_families

from api import create_app
from api.service import metrics
from api.service.clock import FakeClock
from api.store import open_store
from api.store.ports import Unavailable
from conftest import TEST_SETTINGS


def scrape(client: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.get_data(as_text=True))
        for sample in family.samples
    }


def test_requests_are_counted_by_route_template_and_status(client: Any) -> None:
    game = Game.humans(client)
    key = ("copas_http_requests_total", (("method", "GET"), ("route", "/v1/tables/<table_id>"), ("status", "200")))
    before = scrape(client).get(key, 0.0)
    game.view(0)
    game.view(1)
    client.get("/no/such/path")
    after = scrape(client)
    assert after[key] == before + 2
    assert after[("copas_http_requests_total", (("method", "GET"), ("route", "unmatched"), ("status", "404")))] >= 1
    assert ("copas_http_request_duration_seconds_count", (("method", "GET"), ("route", "/v1/tables/<table_id>"))) in after
    assert not any(game.table_id in str(labels) for _, labels in after)  # no table ids in labels


def test_the_outbox_backlog_and_the_hooks_are_reported(client: Any) -> None:
    with metrics.waiting("stream"):
        metrics.set_bot_queue(3)
        seen = scrape(client)
    assert seen[("copas_waiters_open", (("kind", "stream"),))] == 1
    assert seen[("copas_bot_queue_depth", ())] == 3
    assert seen[("copas_outbox_pending", ())] == 0
    assert seen[("copas_outbox_oldest_due_seconds", ())] == 0
    assert scrape(client)[("copas_waiters_open", (("kind", "stream"),))] == 0


def test_answers_503_are_counted_by_kind() -> None:
    store = open_store("memory://")
    client = create_app(TEST_SETTINGS, store=store, clock=FakeClock(), rng=random.Random(1)).test_client()
    key = ("copas_database_unavailable_total", (("kind", "timeout"),))
    before = scrape(client).get(key, 0.0)

    def away(**kwargs: Any) -> Any:
        raise Unavailable("lock timeout", kind="timeout")

    store.unit_of_work = away  # type: ignore[method-assign]
    assert client.post("/v1/tables", json={"name": "Ana"}).status_code == 503
    assert scrape(client)[key] == before + 1
