"""The operator's view: Prometheus metrics, and the hooks other parts feed.

Every metric of the service is defined here, once. Other modules feed them
through the small functions below (`waiting`, `set_bot_queue`,
`database_unavailable`); the web layer counts requests and serves `/metrics`.

Under gunicorn each worker is its own process: `copas serve` points
`PROMETHEUS_MULTIPROC_DIR` at a fresh directory before the workers fork, so
that a scrape of any worker reports the sum over all of them (the
prometheus-client "multiprocess mode"). Without it (tests, `flask run`) the
metrics are the process's own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

from ..config import METRICS_DIRECTORY_ENV
from ..store.ports import Store, Unavailable
from .clock import Clock

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter("copas_http_requests_total", "HTTP requests answered, by route template and status.", ["method", "route", "status"])
LATENCY = Histogram(
    "copas_http_request_duration_seconds",
    "Time to answer an HTTP request (long polls included: see the route).",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
WAITERS = Gauge("copas_waiters_open", "Long polls and streams waiting for a change now.", ["kind"], multiprocess_mode="livesum")
BOT_QUEUE = Gauge("copas_bot_queue_depth", "Bot moves waiting to be thought of (the strong bots' queue).", multiprocess_mode="livemax")
DATABASE_UNAVAILABLE = Counter(
    "copas_database_unavailable_total", "Requests answered 503 because the database was away, by kind of failure.", ["kind"]
)


@contextmanager
def waiting(kind: str) -> Iterator[None]:
    """Count one waiter (`kind`: "long_poll", "stream") for as long as the block runs."""
    gauge = WAITERS.labels(kind)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def set_bot_queue(depth: int) -> None:
    """How many bot moves wait to be computed (fed by whoever keeps that queue)."""
    BOT_QUEUE.set(depth)


def database_unavailable(kind: str) -> None:
    """One request answered 503 (`kind`: connection, timeout, conflict, shutdown, resources, busy)."""
    DATABASE_UNAVAILABLE.labels(kind).inc()


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    counted = _REQUEST_SERIES.get((method, route, status))
    if counted is None:
        # Routes are templates and statuses few: the series stay a few hundred, each looked up once.
        counted = _REQUEST_SERIES[(method, route, status)] = (REQUESTS.labels(method, route, str(status)), LATENCY.labels(method, route))
    count, latency = counted
    count.inc()
    latency.observe(seconds)


_REQUEST_SERIES: dict[tuple[str, str, int], tuple[Any, Any]] = {}


class OutboxCollector(Collector):
    """The webhook outbox's backlog, read from the database at each scrape."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            with self._store.unit_of_work(readonly=True) as uow:
                pending, earliest = uow.outbox_backlog()
        except Unavailable:  # the database away: the 503 counter and the health check say so
            return
        yield GaugeMetricFamily("copas_outbox_pending", "Webhook notifications waiting for delivery.", value=pending)
        overdue = 0.0 if earliest is None else max(0.0, (self._clock.now() - earliest).total_seconds())
        yield GaugeMetricFamily(
            "copas_outbox_oldest_due_seconds", "How long the most overdue pending notification has been due.", value=overdue
        )


def worker_exited(pid: int) -> None:
    """A worker is gone: its live gauges (waiters) no longer count."""
    if os.environ.get(METRICS_DIRECTORY_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


def exposition(*extra: Collector) -> bytes:
    """The text exposition of every metric (summed over the workers under gunicorn), plus `extra`."""
    if os.environ.get(METRICS_DIRECTORY_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Everything())
    for collector in extra:
        registry.register(collector)
    return generate_latest(registry)


class _Everything(Collector):
    """The process's default registry, seen from another registry (so extras can join it per scrape)."""

    def collect(self) -> Iterator[object]:
        yield from REGISTRY.collect()
