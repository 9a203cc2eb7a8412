"""What every benchmark needs around its measurement: percentiles, a fresh database, a free port."""

from __future__ import annotations

import socket
import tempfile


def percentile(values: list[float], fraction: float) -> float:
    """The value below which `fraction` of `values` lie (nearest rank); NaN for no values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def prepare_database(base: str | None, name: str) -> str:
    """A fresh database `name` beside the PostgreSQL one `base` names, or a temporary SQLite file without one."""
    if not base:
        return f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    import psycopg

    with psycopg.connect(base.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return base.rsplit("/", 1)[0] + "/" + name


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
