"""Benchmark of `copas audit`: replaying complete 100-point matches straight from the database.

    .venv/bin/python bench/audit.py --matches 300
    DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/copas_dev .venv/bin/python bench/audit.py

Fills a fresh SQLite database (and, when DATABASE_URL names PostgreSQL, a
fresh database `<name>_bench_audit` on that server, dropped afterwards) with N
complete matches played by bots at all four seats (the event streams are
generated with the engine directly and inserted with the store's `append`),
then times `audit_database` over all of them and prints matches per second
(median of the runs). Target: >= 100 complete 100-point matches per second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, bench/ itself is on the path, where bench/http.py would shadow the standard library.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from api.audit_cli import audit_database  # noqa: E402
from api.engine import Context, apply, decide  # noqa: E402
from api.engine.bots import bot_command  # noqa: E402
from api.engine.commands import CreateTable, SeatBots  # noqa: E402
from api.engine.events import Event, PlayerSeated  # noqa: E402
from api.engine.state import Options, TableState  # noqa: E402
from api.store import codec  # noqa: E402
from api.store.ports import NewEvent  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def bot_match(rng: random.Random, options: Options | None = None) -> tuple[list[Event], TableState]:
    """The events of a table whose one complete match was played by basic bots at every seat.

    Seat 0 is the human creator's seat; a basic bot chooses its moves too, so
    the stream is exactly what a table of four humans playing that way writes.
    """
    context = Context(now=T0, rng=rng)
    state = TableState()
    events: list[Event] = []

    def run(new: tuple[Event, ...]) -> None:
        nonlocal state
        events.extend(new)
        state = apply(state, new, T0)

    run(decide(state, CreateTable("Ana", options or Options()), context))
    run((PlayerSeated(1, "Bia"),))
    run(decide(state, SeatBots(0, (2, 3)), context))
    while state.is_running:
        for seat in state.awaiting:
            command = bot_command(state, seat, rng)
            if command is not None:
                run(decide(state, command, context))
    return events, state


def fill(url: str, matches: int, seed: int = 1, options: Options | None = None) -> list[str]:
    """Insert `matches` complete bot matches (one table each) into the migrated database at `url`."""
    from api.store.sql import SqlStore

    rng = random.Random(seed)
    store = SqlStore(url)
    table_ids = []
    try:
        batch: list[tuple[str, list[NewEvent], str]] = []
        for number in range(matches):
            events, state = bot_match(rng, options)
            table_id = f"bench{seed:04d}{number:06d}"
            batch.append((table_id, [codec.encode(event) for event in events], state.status.value))
            table_ids.append(table_id)
            if len(batch) == 50 or number == matches - 1:
                with store.unit_of_work() as uow:
                    for tid, stream, status in batch:
                        uow.create_table(tid, f"invite-{tid}", T0)
                        uow.append(tid, 0, stream, status=status, now=T0)
                    uow.commit()
                batch = []
    finally:
        store.dispose()
    return table_ids


def time_audit(url: str, runs: int) -> tuple[float, float, int, int]:
    """Median matches/s over `runs` audits of every table, by the wall clock and by this
    process's CPU time (the machine may be shared); also the matches and findings of the last run."""
    rates, cpu_rates = [], []
    summary = None
    for _ in range(runs):
        cpu = time.process_time()
        summary = audit_database(url)
        cpu = time.process_time() - cpu
        rates.append(summary.matches_per_second)
        cpu_rates.append(summary.matches / cpu if cpu > 0 else 0.0)
    assert summary is not None
    return statistics.median(rates), statistics.median(cpu_rates), summary.matches, len(summary.findings)


def _postgres_database(base: str) -> tuple[str, str, str] | None:
    from api.store.sql import normalize_url

    url = normalize_url(base)
    if url.get_backend_name() != "postgresql":
        return None
    name = f"{url.database}_bench_audit"
    server = url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)
    return url.set(database=name).render_as_string(hide_password=False), server, name


def bench(label: str, url: str, matches: int, runs: int, seed: int) -> None:
    from api.store.migrate import upgrade

    upgrade(url)
    start = time.perf_counter()
    fill(url, matches, seed)
    filled = time.perf_counter() - start
    rate, cpu_rate, audited, findings = time_audit(url, runs)
    verdict = "ok" if rate >= 100 else "BELOW TARGET"
    print(
        f"  {label:<10} {audited} matches filled in {filled:.1f} s; audit {rate:,.0f} matches/s wall clock "
        f"({cpu_rate:,.0f} per CPU second of this process), median of {runs}; target >= 100: {verdict}; {findings} findings"
    )


def main(argv: list[str] | None = None) -> int:
    import os

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=300, help="complete matches to store (default 300)")
    parser.add_argument("--runs", type=int, default=5, help="audits to time (median; default 5)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    print("copas audit benchmark (one process; the machine is noisy: medians, compare like with like)")
    with tempfile.TemporaryDirectory() as directory:
        bench("sqlite", f"sqlite:///{directory}/bench.db", args.matches, args.runs, args.seed)

    base = os.environ.get("DATABASE_URL", "").strip()
    target = _postgres_database(base) if base else None
    if target is not None:
        import psycopg
        from psycopg import sql

        url, server, name = target
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            bench("postgresql", url, args.matches, args.runs, args.seed)
        finally:
            with psycopg.connect(server, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
