"""The `Idempotency-Key` header on writes: answer a retry with the first response.

The answer is stored in the move's own transaction (api.service.idempotency):
this wrapper names the request, lets the move run, and hands its rendered
answer back to be kept and committed with the events.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import Response, current_app, request
from werkzeug.exceptions import HTTPException

from ..engine.errors import RuleViolation
from ..service.credentials import digest
from ..service.errors import ServiceError
from ..service.idempotency import AlreadyAnswered, IdempotentRequest
from ..store.ports import IdempotentResponse
from .auth import access
from .context import ledger
from .errors import PROBLEM, http_problem, refusal_problem

KEPT_HEADERS = ("Content-Type", "ETag", "Location")
MAX_KEY_LENGTH = 255


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a write so that a retry with the same key and body gets the stored answer."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = request.headers.get("Idempotency-Key")
        if not key:
            return view(*args, **kwargs)
        # Only a caller of this table may use keys in its scope (401/404 first, nothing stored).
        table_id = request.view_args.get("table_id", "")
        access(table_id)
        keyed = IdempotentRequest(
            table_id=table_id,
            scope=f"{table_id}:{digest(request.headers.get('Authorization', ''))}",
            key=key[:MAX_KEY_LENGTH],
            fingerprint=hashlib.sha256(
                request.method.encode() + b" " + request.path.encode() + b"\n" + request.get_data(cache=True)
            ).hexdigest(),
        )
        with ledger().recording(keyed) as recording:
            try:
                response = current_app.make_response(_answer(view, *args, **kwargs))
            except AlreadyAnswered as answered:
                return _replay(answered.answer)
            if response.status_code >= 500 or _not_processed(response):
                return response  # not an answer to keep: the move (if any) is rolled back
            headers = {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers}
            kept = recording.answer(response.status_code, response.get_data(as_text=True), headers)
        return response if kept.body == response.get_data(as_text=True) else _replay(kept)

    return wrapper


def _replay(answer: IdempotentResponse) -> Response:
    """The kept answer, sent again (and said to be so)."""
    return Response(answer.body, status=answer.status, headers={**answer.headers, "Idempotency-Replayed": "true"})


def _not_processed(response: Response) -> bool:
    """A request refused before the use case ran (its shape): not an answer to replay.

    A retry with the same key may carry corrected headers (which the fingerprint
    leaves out), so only answers of the use case itself are kept.
    """
    if response.status_code not in (413, 422) or response.mimetype != PROBLEM:
        return False
    return (response.get_json(silent=True) or {}).get("code") in ("validation_error", "payload_too_large")


def _answer(view: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The view's answer, with refusals turned into their problem responses (to be stored too)."""
    try:
        return view(*args, **kwargs)
    except (RuleViolation, ServiceError) as error:
        return refusal_problem(error)
    except HTTPException as error:
        return http_problem(error)
