"""Waiting for a table's change as the service waits: its version map over a store's change feed."""

from __future__ import annotations

from api.service.versions import TableVersions


def version_of(store, table_id):
    with store.unit_of_work(readonly=True) as uow:
        return uow.table_row(table_id).version


def changed_within(store, table_id, seen, timeout):
    """Does the table's version differ from `seen` within `timeout` seconds (as a long poll waits)?"""
    return TableVersions(store).wait(table_id, seen, timeout, lambda: version_of(store, table_id)) != seen
