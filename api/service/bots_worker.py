"""Thinking off the request path: the strong bot's search in other processes.

The strong bot searches for up to 0.2 s of CPU a card. Done inside a request
it would hold the table's row lock all that time and stall every other
request of that worker (under gevent, the whole worker). So the search runs
in child processes, and a caller only waits on a pipe, which releases the GIL
(and, under gevent, yields to other greenlets):

    ThinkerPool    a few `python -m api.service.bots_worker` children per
                   process, started on first use, one call at a time each;
                   a call names an engine function (`THOUGHTS`) and passes
                   pickled values (a seat's `BotView`, never the state).
    Thinker        what the service asks of it: a hint, a strong bot's move.
    BotWorker      the `copas worker` loop: finds tables waiting for a strong
                   bot (the `bots_due` flag of their row), asks the Thinker for
                   the bot's move from the table as read (no lock held) and
                   posts it as a command with `If-Match` semantics: if the table
                   moved on meanwhile, it thinks again.

Basic bots answer inline, within the command, as before: they take
microseconds.
"""

from __future__ import annotations

import logging
import os
import pickle
import random
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..engine import hints
from ..engine.bots import bot_decision, thinking_seats
from ..engine.bots.strong import DEFAULT_BUDGET, SERVICE_SECONDS
from ..engine.bots.view import BotView, bot_view
from ..engine.commands import Command
from ..engine.errors import RuleViolation
from .errors import StaleVersion, ThinkerUnavailable

if TYPE_CHECKING:
    from .tables import TableService

log = logging.getLogger("copas.bots")

CALL_TIMEOUT = 5.0  # seconds a child may take before it is replaced (the search stops itself at 0.2 s)
NICENESS = 10  # added to the thinker processes' nice value
_HEADER = struct.Struct("!I")


def _hint(view: BotView, seed: int, seconds: float | None, budget: int) -> hints.Hint:
    return hints.suggest(view, random.Random(seed), seconds=seconds, budget=budget)


def _bot_move(view: BotView, level: str, seed: int, seconds: float | None, budget: int) -> Command:
    return bot_decision(view, level, random.Random(seed), seconds=seconds, budget=budget)


THOUGHTS: dict[str, Callable[..., Any]] = {"hint": _hint, "bot_move": _bot_move}


# -- the child processes -------------------------------------------------------------


def _write_frame(fd: int, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    payload = _HEADER.pack(len(data)) + data
    while payload:
        written = os.write(fd, payload)
        payload = payload[written:]


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                raise TimeoutError("no answer in time")
        chunk = os.read(fd, size - len(chunks))
        if not chunk:
            raise EOFError("the other side closed the pipe")
        chunks += chunk
    return bytes(chunks)


def _read_frame(fd: int, deadline: float | None = None) -> Any:
    (size,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    return pickle.loads(_read_exactly(fd, size, deadline))


def child_main() -> int:
    """A thinker process: answer one call at a time from stdin until it closes.

    It runs at a lower priority: when the cores are busy, requests go first and
    the search (bounded by its wall clock) simply simulates fewer deals.
    """
    inbox, outbox = sys.stdin.fileno(), sys.stdout.fileno()
    while True:
        try:
            name, args = _read_frame(inbox)
        except EOFError:
            return 0
        try:
            answer: tuple[str, Any] = ("ok", THOUGHTS[name](*args))
        except Exception as error:  # noqa: BLE001 - reported to the caller, who decides
            answer = ("error", f"{type(error).__name__}: {error}")
        _write_frame(outbox, answer)


class _Child:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "api.service.bots_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        # Set from here, so the child is niced before it runs a line (and before anyone looks).
        os.setpriority(os.PRIO_PROCESS, self.process.pid, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS)
        self.inbox = self.process.stdin.fileno()
        self.outbox = self.process.stdout.fileno()

    def call(self, name: str, args: tuple[Any, ...], timeout: float) -> Any:
        _write_frame(self.inbox, (name, args))
        status, value = _read_frame(self.outbox, time.monotonic() + timeout)
        if status != "ok":
            raise RuntimeError(value)
        return value

    def close(self) -> None:
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except Exception:  # noqa: BLE001 - already gone
            pass
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class ThinkerPool:
    """Up to `size` child processes; each call takes an idle one (starting one if none is idle)."""

    def __init__(self, size: int = 2, timeout: float = CALL_TIMEOUT) -> None:
        self.size = max(1, size)
        self.timeout = timeout
        self._slots = threading.BoundedSemaphore(self.size)
        self._idle: list[_Child] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def call(self, name: str, *args: Any) -> Any:
        """Run THOUGHTS[name](*args) in a child; ThinkerUnavailable when that fails or takes too long."""
        self._after_fork()
        if not self._slots.acquire(timeout=self.timeout):
            raise ThinkerUnavailable("every thinker is busy; try again shortly")
        child: _Child | None = None
        try:
            with self._lock:
                child = self._idle.pop() if self._idle else None
            if child is None:
                child = _Child()
            answer = child.call(name, args, self.timeout)
        except Exception as error:
            if child is not None:
                child.close()  # its state is unknown: never reuse it
            log.warning("a thinker failed: %s", error)
            raise ThinkerUnavailable("the suggestion could not be computed; try again") from error
        else:
            with self._lock:
                self._idle.append(child)
            return answer
        finally:
            self._slots.release()

    def warm(self) -> threading.Thread:
        """Start every child now, in the background, so that the first calls do not wait for a start."""

        def start() -> None:
            children = []
            try:
                for _ in range(self.size):
                    if self._slots.acquire(blocking=False):
                        children.append(_Child())
            except OSError:
                log.warning("a thinker could not be started", exc_info=True)
            with self._lock:
                self._idle.extend(children)
            for _ in children:
                self._slots.release()

        self._after_fork()
        thread = threading.Thread(target=start, name="copas-thinkers", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for child in idle:
            child.close()

    def _after_fork(self) -> None:
        # A forked process (a gunicorn worker) must not share its parent's pipes.
        if self._pid != os.getpid():
            with self._lock:
                self._idle = []
                self._pid = os.getpid()


_SHARED: ThinkerPool | None = None
_SHARED_LOCK = threading.Lock()


def shared_pool() -> ThinkerPool:
    """This process's pool (every service object of the process uses the same children)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = ThinkerPool(size=int(os.environ.get("COPAS_THINKERS", "2")))
        return _SHARED


# -- what the service asks ------------------------------------------------------------


class Thinker:
    """The strong bot's thinking, for hints and for strong bots' moves, in a ThinkerPool."""

    def __init__(
        self,
        pool: ThinkerPool | None = None,
        *,
        hint_seconds: float | None = hints.HINT_SECONDS,
        bot_seconds: float | None = SERVICE_SECONDS,
        budget: int = DEFAULT_BUDGET,
    ) -> None:
        self._pool = pool
        self.hint_seconds = hint_seconds
        self.bot_seconds = bot_seconds
        self.budget = budget

    @property
    def pool(self) -> ThinkerPool:
        return self._pool if self._pool is not None else shared_pool()

    def hint(self, view: BotView, seed: int) -> hints.Hint:
        return self.pool.call("hint", view, seed, self.hint_seconds, self.budget)

    def bot_move(self, view: BotView, level: str, seed: int) -> Command:
        return self.pool.call("bot_move", view, level, seed, self.bot_seconds, self.budget)


# -- the copas worker loop -----------------------------------------------------------------


class BotWorker:
    """Plays the strong bots' moves of every table whose row says a bot is due."""

    def __init__(self, service: TableService, thinker: Thinker | None = None, *, idle_seconds: float = 0.05, batch: int = 20) -> None:
        self.service = service
        self.thinker = thinker or service.thinker
        self.idle_seconds = idle_seconds
        self.batch = batch
        self.concurrency = self.thinker.pool.size if isinstance(self.thinker, Thinker) else 1
        self.stopping = threading.Event()
        self._rng = random.Random()
        self._resting: dict[str, float] = {}  # tables whose bot failed, until when to leave them be
        self._lock = threading.Lock()

    def run_once(self) -> int:
        """One move for each due table, as many tables at once as the pool has thinkers; how many moves were posted."""
        now = time.monotonic()
        due = [table_id for table_id in self.service.tables_awaiting_bots(self.batch) if self._resting.get(table_id, 0.0) <= now]
        if len(due) <= 1 or self.concurrency <= 1:
            return sum(self._move_or_rest(table_id) for table_id in due)
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(due)), thread_name_prefix="copas-bot") as threads:
            return sum(threads.map(self._move_or_rest, due))

    def _move_or_rest(self, table_id: str) -> int:
        if self.stopping.is_set():
            return 0
        try:
            return self.move(table_id)
        except Exception:  # noqa: BLE001 - one table's trouble must not stop the others
            log.exception("the bot of table %s could not move; trying again later", table_id)
            self._resting[table_id] = time.monotonic() + 5.0
            return 0

    def move(self, table_id: str) -> int:
        """Think for the first due bot of the table, from the table as read, and post its move."""
        state = self.service.state(table_id)
        for seat in thinking_seats(state):
            view = bot_view(state, seat)
            level = state.seats[seat].bot_level
            if view is None or level is None:
                continue
            with self._lock:
                seed = self._rng.getrandbits(64)
            command = self.thinker.bot_move(view, level, seed)
            try:
                self.service.execute(table_id, command, precondition=lambda version: version == state.version)
            except (StaleVersion, RuleViolation):
                return 0  # the table moved on while the bot thought: think again from the new one
            return 1
        # Nothing to do after all (the flag is behind): a command with no events would not clear it.
        self.service.clear_bots_due(table_id, state.version)
        return 0

    def run(self) -> None:
        log.info("bot worker started")
        while not self.stopping.is_set():
            try:
                moved = self.run_once()
            except Exception:  # noqa: BLE001 - e.g. the database is away for a moment
                log.exception("the tables could not be read; trying again shortly")
                self.stopping.wait(1.0)
                continue
            if not moved:
                self.stopping.wait(self.idle_seconds)
        log.info("bot worker stopped")

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="copas-bots", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self.stopping.set()


def start_bot_worker(settings: Settings) -> tuple[BotWorker, threading.Thread]:
    """The strong bots' loop of `copas worker`, on its own store, in a thread; stop it with `.stop()`."""
    from ..store import database_url, open_store
    from .tables import TableService

    store = open_store(settings.database_url or database_url())
    worker = BotWorker(TableService(store, settings))
    worker.thinker.pool.warm()
    return worker, worker.start()


if __name__ == "__main__":
    sys.exit(child_main())
