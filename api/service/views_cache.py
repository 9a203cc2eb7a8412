"""Rendered views: the JSON bytes of one viewer's view of a table at one version.

A view depends on nothing but the table's state (its version) and the viewer,
so the bytes rendered once serve every later read of that viewer at that
version: polls, long polls, streams. Keyed by (table, viewer): a new version
replaces the older bytes (no one asks for an old view), and the least
recently used entries go first when the cache is full. Each viewer has its
own entry, so bytes rendered for one seat never reach another.

The bytes are written straight from the view's dict with orjson; the
marshmallow schemas stay the documentation, and a test checks that both
render the same document.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import orjson

from ..engine import Viewer

DEFAULT_ENTRIES = 4096  # a late-match view is about 3 KB: some 12 MB per process


def render(view: dict[str, Any]) -> bytes:
    """A view as compact JSON bytes (datetimes in ISO 8601, as the schema writes them)."""
    return orjson.dumps(view)


class ViewsCache:
    def __init__(self, entries: int = DEFAULT_ENTRIES) -> None:
        self._entries = entries
        self._items: OrderedDict[tuple[str, Viewer], tuple[int, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def cached(self, table_id: str, viewer: Viewer, version: int) -> bytes | None:
        """The view's bytes at `version` if they are here."""
        key = (table_id, viewer)
        with self._lock:
            entry = self._items.get(key)
            if entry is not None and entry[0] == version:
                self._items.move_to_end(key)
                self.hits += 1
                return entry[1]
            self.misses += 1
            return None

    def put(self, table_id: str, viewer: Viewer, version: int, view: dict[str, Any]) -> bytes:
        """Render `view` (the viewer's view at `version`), keep it and return its bytes."""
        body = render(view)
        key = (table_id, viewer)
        with self._lock:
            entry = self._items.get(key)
            if entry is None or entry[0] <= version:  # never replace a newer view with an older one
                self._items[key] = (version, body)
                self._items.move_to_end(key)
                while len(self._items) > self._entries:
                    self._items.popitem(last=False)
        return body
