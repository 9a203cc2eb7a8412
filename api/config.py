"""Settings, read from the environment (names fixed by the contract)."""

from __future__ import annotations

import os
from dataclasses import dataclass


def _split(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


METRICS_DIRECTORY_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's name for where the processes of one server share their metrics.
It must be set before prometheus_client is imported: `copas serve` sets it before
the gunicorn workers are forked."""


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None  # None: the SQLite file under var/
    stall_seconds: float = 172800.0  # the 48 hours of the abandonment rule
    cors_origins: tuple[str, ...] = ()
    webhook_allowed_hosts: tuple[str, ...] = ()
    public_url: str = "http://127.0.0.1:8000"
    max_body_bytes: int = 64 * 1024
    rate_limit: float = 0.0  # sustained requests per second per client; 0: no limit
    stream_keepalive_seconds: float = 15.0  # the contract: a comment at least every 15 s
    stream_seconds: float = 600.0  # a stream ends after 10 minutes; clients reconnect
    admission_rate_limit: float = 30.0  # tables created plus joins per minute per address (with rate_limit on)
    rate_limit_file: str | None = None  # the SQLite file the workers of a node share their buckets in

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("DATABASE_URL") or None,
            stall_seconds=float(env.get("COPAS_STALL_SECONDS", "172800")),
            cors_origins=_split(env.get("COPAS_CORS_ORIGINS", "")),
            webhook_allowed_hosts=_split(env.get("COPAS_WEBHOOK_ALLOWED_HOSTS", "")),
            public_url=env.get("COPAS_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/"),
            rate_limit=float(env.get("COPAS_RATE_LIMIT", "50")),
            stream_keepalive_seconds=min(float(env.get("COPAS_STREAM_KEEPALIVE_SECONDS", "15")), 15.0),
            stream_seconds=float(env.get("COPAS_STREAM_SECONDS", "600")),
            admission_rate_limit=float(env.get("COPAS_ADMISSION_RATE_LIMIT", "30")),
            rate_limit_file=env.get("COPAS_RATE_LIMIT_FILE") or None,
        )
