"""Events to JSON and back: the only place that knows how an event is stored.

A stored event is `{type, schema_version, seat, at, data}`. The envelope's
`seat` is the acting seat, so it is not repeated in `data`. Reading goes
through `upcast`, so events written by older versions keep replaying.

A table's options are stored whole (every option of `api.engine.rule_set`);
streams written before rule sets name only `target_score`, `revoke` and
`tie`: `upcast_options` reads them as a classic table.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any

from ..engine.events import EVENT_TYPES, Event, Recorded
from ..engine import rule_set
from ..engine.rule_set import RuleSet
from .ports import NewEvent, StoredEvent

SCHEMA_VERSION = 1


class UnknownEvent(ValueError):
    """A stored event whose type or fields this version cannot read."""


def encode(event: Event) -> NewEvent:
    return NewEvent(type=event.type, seat=event.actor, data=event_data(event), schema_version=SCHEMA_VERSION)


def event_data(event: Event) -> dict[str, Any]:
    """The `data` of an event as the API shows it (hidden fields are null)."""
    return {field.name: _plain(getattr(event, field.name)) for field in data_fields(type(event))}


@functools.cache
def data_fields(cls: type[Event]) -> tuple[dataclasses.Field[Any], ...]:
    """The fields an event keeps in `data`: all but `seat`, which the envelope carries."""
    return tuple(field for field in dataclasses.fields(cls) if field.name != "seat")


def decode(stored: StoredEvent) -> Recorded:
    data = upcast(stored.type, stored.schema_version, dict(stored.data))
    cls = EVENT_TYPES.get(stored.type)
    if cls is None:
        raise UnknownEvent(f"unknown event type {stored.type!r} at seq {stored.seq}")
    kwargs: dict[str, Any] = {}
    for name, read, default in _readers(cls):
        if name == "seat":
            kwargs["seat"] = stored.seat
        elif name in data:
            kwargs[name] = read(data[name])
        elif default is not dataclasses.MISSING:
            kwargs[name] = default
        else:
            raise UnknownEvent(f"{stored.type} at seq {stored.seq} lacks {name!r}")
    return Recorded(stored.seq, stored.at, cls(**kwargs))


@functools.cache
def _readers(cls: type[Event]) -> tuple[tuple[str, Callable[[Any], Any], Any], ...]:
    """Each field of an event class with its reader and default (computed once per class)."""
    return tuple((field.name, _READERS.get(field.name, _identity), field.default) for field in dataclasses.fields(cls))


def decode_all(stream: Iterable[StoredEvent]) -> list[Recorded]:
    return [decode(stored) for stored in stream]


# -- upcasters: (type, from_version) -> function giving the next version's data

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcast(event_type: str, version: int, data: dict[str, Any]) -> dict[str, Any]:
    while version < SCHEMA_VERSION:
        step = UPCASTERS.get((event_type, version))
        if step is not None:
            data = step(data)
        version += 1
    return data


# -- value conversions -------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, RuleSet):
        return rule_set.as_plain(value)
    if isinstance(value, (tuple, list, frozenset)):
        return [_plain(item) for item in value]
    return value


def _identity(value: Any) -> Any:
    return value


_CLASSIC_OPTIONS = rule_set.as_plain(rule_set.CLASSIC)


def upcast_options(value: dict[str, Any]) -> dict[str, Any]:
    """Options stored before rule sets (three of them) are a classic table's: the rest take classic's values."""
    return {**_CLASSIC_OPTIONS, **value}


def _options(value: dict[str, Any]) -> RuleSet:
    return rule_set.from_plain(upcast_options(value))


def _cards(value: list[str] | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


def _hands(value: list[list[str] | None]) -> tuple[tuple[str, ...] | None, ...]:
    return tuple(_cards(hand) for hand in value)


_READERS: dict[str, Callable[[Any], Any]] = {
    "options": _options,
    "hands": _hands,
    "cards": _cards,
    "awaited": tuple,
}
