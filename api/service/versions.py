"""The node's map of table versions: a 304 and a waiting request need no query.

Kept current by this node's own commits and by the store's change feed
(PostgreSQL `LISTEN/NOTIFY`, which carries every node's commits). The map is
trusted only while the feed is live: every commit that finished more than
`STALE_BOUND_SECONDS` ago has been heard (in practice a notification arrives
a few milliseconds after its commit). When the feed is not live (not
connected yet, reconnecting, or no feed at all, as on SQLite where several
processes share the file) the map is not used and each read asks the
database, as before.

Waiting requests (long polls, streams) wait here: one registration per
waiter, woken by the feed's notification for their table, never a database
connection or a thread each. A waiter only reads the database again when the
map cannot answer.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from ..store.ports import STALE_BOUND_SECONDS, ChangeFeed, Store

__all__ = ["STALE_BOUND_SECONDS", "TableVersions"]

FALLBACK_POLL_SECONDS = 0.5  # how often a waiter reads the version while the feed is not live
MAP_SIZE = 100_000  # tables remembered (about 10 MB per process at the most)

Read = Callable[[], int]  # the table's version from the database


class Hangup:
    """How a waiter learns that its client went away (the web layer's socket watch).

    `watch(wake)` calls `wake()` when the client may have gone; `gone()` says
    whether it has. The default watches nothing.
    """

    def watch(self, wake: Callable[[], None]) -> None:
        """Start watching; call `wake` when the client may have gone."""

    def gone(self) -> bool:
        return False

    def close(self) -> None:
        """Stop watching."""


class TableVersions:
    def __init__(self, store: Store) -> None:
        self._feed: ChangeFeed | None = store.changes()
        self._known: OrderedDict[str, int] = OrderedDict()
        self._epoch = 0  # counts the times the feed said it may have missed commits
        self._waiters: dict[str, set[threading.Event]] = {}
        self._lock = threading.Lock()
        if self._feed is not None:
            self._feed.subscribe(self._heard)

    @property
    def live(self) -> bool:
        """True when the map may answer without the database."""
        return self._feed is not None and self._feed.live

    @property
    def waiting(self) -> int:
        """How many requests wait for a change right now."""
        with self._lock:
            return sum(len(waiters) for waiters in self._waiters.values())

    def known(self, table_id: str) -> int | None:
        """The table's version if the map vouches for it (the feed is live and has told
        of the table), else None: never a query."""
        if not self.live:
            return None
        with self._lock:
            return self._known.get(table_id)

    def current(self, table_id: str, read: Read) -> int:
        """The table's version: from the map when it knows it, else read (and remembered)."""
        known = self.known(table_id)
        if known is not None:
            return known
        live, epoch = self.live, self._epoch
        version = read()
        if live:
            self._learn(table_id, version, epoch)
        return version

    def committed(self, table_id: str, version: int) -> None:
        """This node committed `version` of the table."""
        self._learn(table_id, version, self._epoch)
        self._wake(table_id)

    def wait(self, table_id: str, seen: int, timeout: float, read: Read, hangup: Hangup | None = None) -> int:
        """The table's version as soon as it differs from `seen`, or after `timeout`
        seconds (or when the client hangs up) the version then.

        Database errors while waiting do not end the wait (a database restart
        is ridden through); only the last read, at the deadline, may raise.
        """
        hangup = hangup or Hangup()
        deadline = time.monotonic() + max(timeout, 0.0)
        woken = threading.Event()
        with self._lock:
            self._waiters.setdefault(table_id, set()).add(woken)
        hangup.watch(woken.set)
        try:
            while True:
                # Clear, then check, then wait: a change that lands after the
                # check sets the event again, so it is never missed.
                woken.clear()
                remaining = deadline - time.monotonic()
                if remaining <= 0 or hangup.gone():
                    return self.current(table_id, read)
                try:
                    version = self.current(table_id, read)
                except Exception:  # noqa: BLE001 - the database is away: wait on, poll again
                    version = seen
                if version != seen:
                    return version
                woken.wait(remaining if self.live else min(remaining, FALLBACK_POLL_SECONDS))
        finally:
            hangup.close()
            with self._lock:
                waiters = self._waiters.get(table_id)
                if waiters is not None:
                    waiters.discard(woken)
                    if not waiters:
                        del self._waiters[table_id]

    # -- inside --------------------------------------------------------------------

    def _learn(self, table_id: str, version: int, epoch: int) -> None:
        with self._lock:
            if epoch != self._epoch:
                return  # read before the feed lost track: not to be trusted
            if version >= self._known.get(table_id, -1):
                self._known[table_id] = version
            self._known.move_to_end(table_id)
            while len(self._known) > MAP_SIZE:
                self._known.popitem(last=False)

    def _heard(self, table_id: str | None, version: int | None) -> None:
        """The feed's callback: a commit (of any node), or (None, None): forget everything."""
        if table_id is None or version is None:
            with self._lock:
                self._epoch += 1
                self._known.clear()
                targets = [woken for waiters in self._waiters.values() for woken in waiters]
            for woken in targets:
                woken.set()
            return
        self._learn(table_id, version, self._epoch)
        self._wake(table_id)

    def _wake(self, table_id: str) -> None:
        with self._lock:
            targets = list(self._waiters.get(table_id, ()))
        for woken in targets:
            woken.set()
