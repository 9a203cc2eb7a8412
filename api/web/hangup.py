"""Noticing that a waiting request's client went away, without reading from it.

Under gunicorn's gevent worker the client's socket is in the WSGI environ.
A waiter asks the event loop to tell it when that socket becomes readable:
a GET's client sends nothing more while it waits, so readable means it hung
up (end of file) or sent a pipelined request (then we stop watching). No
greenlet, thread or buffer per waiter: one I/O watcher on the hub.
Elsewhere (threads, the test client) nothing is watched.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from typing import Any

from flask import request

from ..service.versions import Hangup


def client_hangup() -> Hangup:
    """A watch on this request's client, or a no-op where it cannot be watched."""
    sock = request.environ.get("gunicorn.socket")
    if sock is None or not _gevent_patched():
        return Hangup()
    return SocketHangup(sock)


def _gevent_patched() -> bool:
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and bool(monkey.is_module_patched("socket"))


class SocketHangup(Hangup):
    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._watcher: Any = None
        self._gone = False

    def watch(self, wake: Callable[[], None]) -> None:
        from gevent import get_hub

        if self._watcher is None:
            self._watcher = get_hub().loop.io(self._sock.fileno(), 1)  # 1: readable

        def readable() -> None:
            self._watcher.stop()  # level-triggered: once is enough; gone() looks closer
            wake()

        self._watcher.start(readable)

    def gone(self) -> bool:
        if self._gone:
            return True
        raw = getattr(self._sock, "_sock", self._sock)  # gevent's socket would wait; the OS one answers now
        try:
            data = raw.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return False  # nothing to read: still there
        except OSError:
            data = b""  # reset: gone
        self._gone = not data
        return self._gone

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher.close()
            self._watcher = None
