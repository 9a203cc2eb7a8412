"""Refusals of the service itself (the rules' refusals are api.engine.errors)."""

from __future__ import annotations

from typing import ClassVar


class ServiceError(Exception):
    """A request the service refuses before or around the rules."""

    code: ClassVar[str] = "service_error"
    field: ClassVar[str | None] = None  # the request field at fault, for a 422

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail or (self.__doc__ or "").strip())

    @property
    def detail(self) -> str:
        return str(self)


class Unauthenticated(ServiceError):
    """A bearer token of this table is needed."""

    code = "unauthenticated"


class UnknownToken(Unauthenticated):
    """This bearer token is not one the service issued."""


class Forbidden(ServiceError):
    """This token may not do that."""

    code = "forbidden"


class NotFound(ServiceError):
    """No such table (or not one this token belongs to)."""

    code = "not_found"


class StaleVersion(ServiceError):
    """The table has changed since the version given in If-Match."""

    code = "stale_version"


class IdempotencyKeyReused(ServiceError):
    """This Idempotency-Key was used with a different request."""

    code = "idempotency_key_reused"


class InvalidWebhook(ServiceError):
    """The webhook URL is not one the service will call."""

    code = "validation_error"
    field = "webhook_url"


class HintsDisabled(ServiceError):
    """The table's creator turned hints off for this table."""

    code = "hints_disabled"


class ThinkerUnavailable(ServiceError):
    """The search could not answer in time (the service is busy); trying again shortly may work."""

    code = "thinker_unavailable"
