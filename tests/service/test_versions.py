"""The node's version map: answers from memory only while the change feed is live."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from api.service.versions import Hangup, TableVersions
from api.store.memory import MemoryFeed


class FakeFeed(MemoryFeed):
    """The memory store's feed, driven by the test: `live` by hand, and a reset on demand."""

    def __init__(self, live: bool = True) -> None:
        super().__init__()
        self.live = live

    def commit(self, table_id: str, version: int) -> None:
        self.publish(table_id, version)

    def reset(self) -> None:
        for listener in self._listeners:
            listener(None, None)


class FakeStore:
    def __init__(self, feed: FakeFeed | None) -> None:
        self.feed = feed

    def changes(self) -> FakeFeed | None:
        return self.feed


class Database:
    """The version the database holds, and how often it was asked."""

    def __init__(self, version: int = 3) -> None:
        self.version = version
        self.reads = 0
        self.down = False

    def read(self) -> int:
        self.reads += 1
        if self.down:
            raise ConnectionError("the database is away")
        return self.version


def versions_with(feed: FakeFeed | None) -> TableVersions:
    return TableVersions(FakeStore(feed))  # type: ignore[arg-type]


def test_with_a_live_feed_a_version_is_read_once_then_answered_from_memory() -> None:
    versions, db = versions_with(FakeFeed()), Database()
    assert [versions.current("t1", db.read) for _ in range(5)] == [3] * 5
    assert db.reads == 1


def test_a_commit_heard_on_the_feed_is_the_next_answer_without_a_read() -> None:
    feed = FakeFeed()
    versions, db = versions_with(feed), Database()
    versions.current("t1", db.read)
    feed.commit("t1", 9)
    assert versions.current("t1", db.read) == 9
    assert db.reads == 1


def test_the_nodes_own_commit_is_the_next_answer_without_a_read() -> None:
    versions, db = versions_with(FakeFeed()), Database()
    versions.committed("t1", 4)
    assert versions.current("t1", db.read) == 4
    assert db.reads == 0


def test_an_older_version_never_replaces_a_newer_one() -> None:
    feed = FakeFeed()
    versions, db = versions_with(feed), Database()
    feed.commit("t1", 9)
    versions.committed("t1", 7)  # our commit, heard after a newer one of another node
    assert versions.current("t1", db.read) == 9


def test_without_a_live_feed_every_answer_is_read_from_the_database() -> None:
    feed = FakeFeed(live=False)
    versions, db = versions_with(feed), Database()
    feed.commit("t1", 9)
    assert [versions.current("t1", db.read) for _ in range(3)] == [3] * 3
    assert db.reads == 3


def test_without_any_feed_every_answer_is_read_from_the_database() -> None:
    versions, db = versions_with(None), Database()
    versions.committed("t1", 3)
    versions.current("t1", db.read)
    versions.current("t1", db.read)
    assert db.reads == 2


def test_a_reset_of_the_feed_forgets_every_version_known() -> None:
    feed = FakeFeed()
    versions, db = versions_with(feed), Database()
    versions.current("t1", db.read)
    feed.reset()  # reconnected: commits may have been missed
    db.version = 5
    assert versions.current("t1", db.read) == 5
    assert db.reads == 2


def test_a_version_read_across_a_reset_of_the_feed_is_not_remembered() -> None:
    feed = FakeFeed()
    versions = versions_with(feed)
    reads = 0

    def read_while_the_feed_resets() -> int:
        nonlocal reads
        reads += 1
        feed.reset()  # the read began before the reset: it may have missed a commit
        return 3

    versions.current("t1", read_while_the_feed_resets)
    versions.current("t1", read_while_the_feed_resets)
    assert reads == 2


def test_a_wait_ends_as_soon_as_a_commit_is_heard() -> None:
    feed = FakeFeed()
    versions, db = versions_with(feed), Database()
    timer = threading.Timer(0.2, feed.commit, args=("t1", 4))
    timer.start()
    started = time.monotonic()
    assert versions.wait("t1", 3, 10, db.read) == 4
    assert time.monotonic() - started < 5
    assert db.reads == 1  # the first check; the wake came from the feed


def test_a_wait_with_no_change_ends_after_its_timeout_with_the_same_version() -> None:
    versions, db = versions_with(FakeFeed()), Database()
    assert versions.wait("t1", 3, 0.2, db.read) == 3


def test_a_wait_for_a_version_already_gone_returns_at_once() -> None:
    versions, db = versions_with(FakeFeed()), Database(version=5)
    assert versions.wait("t1", 3, 10, db.read) == 5


def test_waiters_are_counted_while_they_wait_and_dropped_when_they_end() -> None:
    feed = FakeFeed()
    versions, db = versions_with(feed), Database()
    threads = [threading.Thread(target=versions.wait, args=("t1", 3, 10, db.read)) for _ in range(5)]
    for thread in threads:
        thread.start()
    wait_until(lambda: versions.waiting == 5)
    feed.commit("t1", 4)
    for thread in threads:
        thread.join(timeout=5)
    assert versions.waiting == 0


class Caller(Hangup):
    """A client that hangs up when told."""

    def __init__(self) -> None:
        self.hung_up = False
        self.wake: Callable[[], None] | None = None

    def watch(self, wake: Callable[[], None]) -> None:
        self.wake = wake

    def gone(self) -> bool:
        return self.hung_up

    def hang_up(self) -> None:
        self.hung_up = True
        assert self.wake is not None
        self.wake()


def test_a_waiter_whose_client_hangs_up_is_dropped_at_once() -> None:
    versions, db = versions_with(FakeFeed()), Database()
    caller = Caller()
    thread = threading.Thread(target=versions.wait, args=("t1", 3, 30, db.read, caller))
    thread.start()
    wait_until(lambda: versions.waiting == 1)
    caller.hang_up()
    thread.join(timeout=2)
    assert not thread.is_alive()
    assert versions.waiting == 0


def test_a_wait_rides_through_the_database_being_away_and_sees_the_change_after() -> None:
    versions, db = versions_with(FakeFeed(live=False)), Database()
    results: list[int] = []
    thread = threading.Thread(target=lambda: results.append(versions.wait("t1", 3, 10, db.read)))
    thread.start()
    wait_until(lambda: db.reads >= 1)
    db.down = True
    wait_until(lambda: db.reads >= 3)  # polls fail: it waits on
    db.version, db.down = 4, False
    thread.join(timeout=5)
    assert results == [4]


def test_a_wait_whose_last_read_fails_raises() -> None:
    versions, db = versions_with(FakeFeed(live=False)), Database()
    db.down = True
    with pytest.raises(ConnectionError):
        versions.wait("t1", 3, 0.3, db.read)


def wait_until(condition: Callable[[], bool], timeout: float = 5) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)
