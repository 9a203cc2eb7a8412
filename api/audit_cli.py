"""`copas audit [--table ID | --all]`: replay tables straight from the database and check them.

For each table: the stored seqs run 1..version with no gap; every event
decodes (through the codec's upcasters) and was a legal decision when it was
made (`api.engine.audit.StreamAuditor`); every deal is 52 distinct cards
that hash to its published commitment; and the summary row (`tables.version`,
`tables.status`) agrees with the replay. Findings are printed with the table
id and seq; the exit status is 1 when there is any, 0 when there is none and
2 for a usage error. With `--all` a progress bar is drawn on stderr.

Everything is read in one snapshot (REPEATABLE READ on PostgreSQL, one read
transaction on SQLite), so a live service writing meanwhile causes no false
findings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple, TextIO

from sqlalchemy import Connection, select

from .engine.audit import STALL_SECONDS, Finding, StreamAuditor
from .store import codec, database_url
from .store import models as m
from .store.ports import StoredEvent, TableRow
from .store.sql import BATCH_TIMEOUTS, make_engine, read_snapshot

BATCH = 2000  # rows fetched at a time


@dataclass
class TableReport:
    table_id: str
    findings: list[Finding]
    events: int
    matches: int
    finished_matches: int
    rounds: int


@dataclass
class Summary:
    tables: int = 0
    events: int = 0
    matches: int = 0
    finished_matches: int = 0
    rounds: int = 0
    seconds: float = 0.0
    findings: list[tuple[str, Finding]] = field(default_factory=list)

    def add(self, report: TableReport) -> None:
        self.tables += 1
        self.events += report.events
        self.matches += report.matches
        self.finished_matches += report.finished_matches
        self.rounds += report.rounds
        self.findings.extend((report.table_id, finding) for finding in report.findings)

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds if self.seconds > 0 else 0.0


def audit_table(row: TableRow, stream: Iterable[StoredEvent], stall_seconds: float = STALL_SECONDS) -> TableReport:
    """Replay and check one table's stored stream against its summary row."""
    auditor = StreamAuditor(stall_seconds)
    for stored in stream:
        try:
            recorded = codec.decode(stored)
        except Exception as error:  # noqa: BLE001 - any failure to read an event is a finding
            auditor.report(stored.seq, "undecodable", f"{stored.type} v{stored.schema_version}: {error}; replay stopped here")
            break
        auditor.feed(recorded)
    else:
        state = auditor.finish()
        if row.version != state.version:
            auditor.report(0, "row_version", f"tables.version is {row.version}, the stream ends at seq {state.version}")
        if row.status != state.status.value:
            auditor.report(0, "row_status", f"tables.status is {row.status!r}, the replay says {state.status.value!r}")
    state = auditor.state
    return TableReport(
        table_id=row.table_id,
        findings=auditor.findings,
        events=auditor.events,
        matches=len(state.matches),
        finished_matches=sum(1 for match in state.matches if match.result is not None),
        rounds=sum(len(match.history) for match in state.matches),
    )


# -- reading the database ------------------------------------------------------------


def _rows(conn: Connection, table_id: str | None) -> list[TableRow]:
    t = m.tables
    stmt = select(t).order_by(t.c.table_id)
    if table_id is not None:
        stmt = stmt.where(t.c.table_id == table_id)
    return [
        TableRow(r.table_id, r.version, r.status, r.invite_hash, r.created_at, r.updated_at)
        for r in conn.execute(stmt)
    ]


class _Row(NamedTuple):
    """A stored event as read here: the attributes of `StoredEvent` that `codec.decode` reads,
    about five times cheaper to build than the frozen dataclass (it is built once per event)."""

    seq: int
    type: str
    schema_version: int
    seat: int | None
    at: datetime
    data: dict[str, Any]


_STREAMS_SQL = {
    # One row per table: its events as one JSON array of [seq, type, schema_version, seat, at, data].
    # One JSON document per table parses several times faster than one per event.
    "sqlite": (
        "SELECT table_id, json_group_array(json_array(seq, type, schema_version, seat, at, json(data))) "
        "FROM (SELECT * FROM events {where} ORDER BY table_id, seq) GROUP BY table_id ORDER BY table_id"
    ),
    "postgresql": (
        "SELECT table_id, json_agg(json_build_array(seq, type, schema_version, seat, at, data) ORDER BY seq)::text "
        "FROM events {where} GROUP BY table_id ORDER BY table_id"
    ),
}


def _streams(conn: Connection, table_id: str | None) -> Iterator[tuple[str, list[StoredEvent]]]:
    """Each table's stored events in seq order, tables in id order: one streamed query.

    Read on the driver's cursor, inside the connection's snapshot transaction:
    SQLAlchemy's per-row result processing would cost more than the replay
    itself when auditing thousands of tables.
    """
    postgres = conn.dialect.name == "postgresql"
    where, params = ("", ()) if table_id is None else ("WHERE table_id = " + ("%s" if postgres else "?"), (table_id,))
    query = _STREAMS_SQL["postgresql" if postgres else "sqlite"].format(where=where)
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    # A named (server-side) cursor on PostgreSQL streams the rows instead of loading them all.
    cursor = dbapi.cursor(name="copas_audit") if postgres else dbapi.cursor()
    times: dict[str, datetime] = {}
    try:
        cursor.execute(query, params)
        while rows := cursor.fetchmany(64):
            for tid, document in rows:
                stream = []
                for seq, type_, schema_version, seat, at, data in json.loads(document):
                    when = times.get(at)
                    if when is None:
                        when = times[at] = _utc(at)
                    stream.append(_Row(seq, type_, schema_version, seat, when, data))
                stream.sort(key=_seq)  # already in order; the aggregate's order is not guaranteed everywhere
                yield tid, stream  # type: ignore[misc]
    finally:
        cursor.close()


def _seq(row: _Row) -> int:
    return row.seq


def _utc(text: str) -> datetime:
    """A stored time as an aware UTC datetime (SQLite keeps naive UTC text, PostgreSQL ISO 8601 with offset)."""
    value = datetime.fromisoformat(text)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def audit_database(
    url: str,
    table_id: str | None = None,
    *,
    progress: TextIO | None = None,
    stall_seconds: float = STALL_SECONDS,
) -> Summary:
    """Audit one table (or every table) of the database at `url`."""
    engine = make_engine(url, timeouts=BATCH_TIMEOUTS)  # one long snapshot read
    summary = Summary()
    start = time.perf_counter()
    bar = ProgressBar(progress) if progress is not None else None
    try:
        with engine.connect() as conn:
            read_snapshot(conn)
            with conn.begin():
                rows = _rows(conn, table_id)
                if bar is not None:
                    bar.total = len(rows)
                streams = _streams(conn, table_id)
                pending = next(streams, None)
                for row in rows:
                    stream: list[StoredEvent] = []
                    # Tables and streams come in the same order; a stream without a row is skipped.
                    while pending is not None and pending[0] < row.table_id:
                        pending = next(streams, None)
                    if pending is not None and pending[0] == row.table_id:
                        stream = pending[1]
                        pending = next(streams, None)
                    summary.add(audit_table(row, stream, stall_seconds))
                    if bar is not None:
                        summary.seconds = time.perf_counter() - start
                        bar.update(summary)
    finally:
        engine.dispose()
    summary.seconds = time.perf_counter() - start
    if bar is not None:
        bar.close(summary)
    return summary


class ProgressBar:
    """`[#########---------]  512/1000 tables  130 matches/s  3 findings`, redrawn in place."""

    WIDTH = 30
    INTERVAL = 0.1  # seconds between redraws

    def __init__(self, out: TextIO, total: int = 0) -> None:
        self.out = out
        self.total = total
        self._last = 0.0
        self._drawn = -1
        # Into a file or a pipe, redraw less often: every line stays in the log.
        self.interval = self.INTERVAL if getattr(out, "isatty", lambda: False)() else 2.0

    def update(self, summary: Summary, *, force: bool = False) -> None:
        now = time.perf_counter()
        if summary.tables == self._drawn or (not force and now - self._last < self.interval and summary.tables != self.total):
            return
        self._last = now
        self._drawn = summary.tables
        done = summary.tables
        filled = self.WIDTH * done // self.total if self.total else self.WIDTH
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        found = len(summary.findings)
        self.out.write(
            f"\r[{bar}] {done:>{len(str(self.total))}}/{self.total} tables"
            f"  {summary.matches_per_second:,.0f} matches/s  {found} finding{'s' if found != 1 else ''}"
        )
        self.out.flush()

    def close(self, summary: Summary) -> None:
        self.update(summary, force=True)
        self.out.write("\n")
        self.out.flush()


# -- the command ---------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="copas audit",
        description="Replay tables from the database (DATABASE_URL, else var/copas.db) and check them: "
        "seq continuity, legal decisions, deal commitments, the stored summary row.",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--table", metavar="ID", help="audit this table")
    which.add_argument("--all", action="store_true", help="audit every table (progress bar on stderr)")
    parser.add_argument("--database-url", metavar="URL", help="instead of DATABASE_URL")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar with --all")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    url = args.database_url or database_url()
    stall = float(os.environ.get("COPAS_STALL_SECONDS", STALL_SECONDS))
    progress = sys.stderr if args.all and not args.no_progress else None
    summary = audit_database(url, None if args.all else args.table, progress=progress, stall_seconds=stall)
    if args.table is not None and summary.tables == 0:
        print(f"no table {args.table!r} in the database", file=sys.stderr)
        return 2
    print_summary(summary, sys.stdout)
    return 1 if summary.findings else 0


def print_summary(summary: Summary, out: TextIO) -> None:
    for table_id, finding in summary.findings:
        where = f"seq {finding.seq}" if finding.seq else "table row"
        out.write(f"table {table_id} {where}: {finding.code}: {finding.detail}\n")
    out.write(
        f"audited {summary.tables} table{'s' if summary.tables != 1 else ''}: {summary.events} events, "
        f"{summary.matches} matches ({summary.finished_matches} finished), {summary.rounds} rounds "
        f"in {summary.seconds:.2f} s ({summary.matches_per_second:,.0f} matches/s)\n"
    )
    tables = len({table_id for table_id, _ in summary.findings})
    if summary.findings:
        out.write(f"{len(summary.findings)} finding{'s' if len(summary.findings) != 1 else ''} in {tables} table{'s' if tables != 1 else ''}\n")
    else:
        out.write("no findings\n")
