"""`GET /metrics` (Prometheus text format) and the request counters behind it.

Outside the OpenAPI document: it is for the operator's scraper, not for
clients. Requests are labelled by route template (`/v1/tables/<table_id>`),
never by concrete path, so the series stay few.
"""

from __future__ import annotations

import time

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST

from ..service import metrics
from .context import service

UNMATCHED = "unmatched"  # 404s of unknown paths share one series


def install(app: Flask) -> None:
    @app.before_request
    def start_clock() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def count(response: Response) -> Response:
        started = g.pop("metrics_started", None)
        if started is not None:
            route = request.url_rule.rule if request.url_rule is not None else UNMATCHED
            metrics.observe_request(request.method, route, response.status_code, time.perf_counter() - started)
        return response

    @app.get("/metrics")
    def exposition() -> Response:
        outbox = metrics.OutboxCollector(service().store, service().clock)
        return Response(metrics.exposition(outbox), mimetype=CONTENT_TYPE_LATEST)
