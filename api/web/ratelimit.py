"""A per-client token bucket: 429 rate_limited with Retry-After past the limit.

Clients are told apart by their bearer token (hashed), or by address when
they have none. The buckets live in each process (a deployment behind a
load balancer would move them to a shared store); COPAS_RATE_LIMIT sets the
sustained requests per second (0 turns the limit off), with bursts of twice
that.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time

from flask import Flask, Response, request

from .errors import problem


class TokenBuckets:
    def __init__(self, rate: float, burst: float, size: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.size = size
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str, now: float) -> float:
        """0 when the request may go ahead, else the seconds to wait."""
        with self._lock:
            tokens, last = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens < 1:
                self._buckets[key] = (tokens, now)
                return (1 - tokens) / self.rate
            if len(self._buckets) >= self.size and key not in self._buckets:
                self._buckets.clear()  # forget idle clients rather than grow without bound
            self._buckets[key] = (tokens - 1, now)
            return 0.0


def install(app: Flask, rate: float) -> None:
    if rate <= 0:
        return
    buckets = TokenBuckets(rate, 2 * rate)

    @app.before_request
    def limit() -> Response | None:
        credential = request.headers.get("Authorization") or request.remote_addr or "anonymous"
        key = hashlib.sha256(credential.encode("utf-8", "surrogatepass")).hexdigest()
        wait = buckets.take(key, time.monotonic())
        if wait:
            return problem(429, "rate_limited", "too many requests; retry later", headers={"Retry-After": str(math.ceil(wait))})
        return None
