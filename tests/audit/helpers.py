"""Helpers of the audit tests: fixtures on disk, bot matches, stored streams, the CLI."""

from __future__ import annotations

import importlib.util
import io
import json
import random
from collections.abc import Iterable
from contextlib import redirect_stderr, redirect_stdout
from datetime import datetime
from pathlib import Path
from typing import Any

from api.engine.events import Event
from api.engine.state import Options, TableState
from api.store import codec
from api.store.ports import NewEvent, StoredEvent

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[2]


def _load_bench() -> Any:
    spec = importlib.util.spec_from_file_location("copas_bench_audit", ROOT / "bench" / "audit.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_bench()
T0: datetime = bench.T0


def bot_match(seed: int, options: Options | None = None) -> tuple[list[Event], TableState]:
    """The events of one complete match played by bots at every seat (the benchmark's generator)."""
    return bench.bot_match(random.Random(seed), options)


def fixture_stream(name: str) -> list[StoredEvent]:
    document = json.loads((FIXTURES / name).read_text())
    return [
        StoredEvent(e["seq"], e["type"], e["schema_version"], e["seat"], datetime.fromisoformat(e["at"]), e["data"])
        for e in document["events"]
    ]


def store_table(store: Any, table_id: str, events: Iterable[Event | NewEvent], *, status: str, at: datetime = T0) -> None:
    """Insert a whole stream as one append, the way the service writes it."""
    stream = [event if isinstance(event, NewEvent) else codec.encode(event) for event in events]
    with store.unit_of_work() as uow:
        uow.create_table(table_id, f"invite-{table_id}", at)
        uow.append(table_id, 0, stream, status=status, now=at)
        uow.commit()


def run_audit(*argv: str) -> tuple[int, str, str]:
    """`copas audit ARGV` in-process: (exit status, stdout, stderr)."""
    from api.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["audit", *argv])
    return status, out.getvalue(), err.getvalue()
