"""The `Idempotency-Key` header on writes: answer a retry with the first response."""

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
from ..service.idempotency import Claim
from .context import ledger
from .errors import problem, status_for

KEPT_HEADERS = ("Content-Type", "ETag", "Location")


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a write so that a retry with the same key and body gets the stored answer."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = request.headers.get("Idempotency-Key")
        if not key:
            return view(*args, **kwargs)
        scope = f"{request.view_args.get('table_id', '')}:{digest(request.headers.get('Authorization', ''))}"
        fingerprint = hashlib.sha256(
            request.method.encode() + b" " + request.path.encode() + b"\n" + request.get_data(cache=True)
        ).hexdigest()
        claimed = ledger().claim(scope, key[:255], fingerprint)
        if not isinstance(claimed, Claim):
            return Response(claimed.body, status=claimed.status, headers=claimed.headers)
        try:
            response = current_app.make_response(_answer(view, *args, **kwargs))
        except Exception:
            ledger().release(claimed)
            raise
        if response.status_code >= 500:
            ledger().release(claimed)
            return response
        headers = {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers}
        ledger().fulfil(claimed, response.status_code, response.get_data(as_text=True), headers)
        return response

    return wrapper


def _answer(view: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The view's answer, with refusals turned into their problem responses (to be stored too)."""
    try:
        return view(*args, **kwargs)
    except (RuleViolation, ServiceError) as error:
        return problem(status_for(error.code), error.code, error.detail)
    except HTTPException as error:
        return current_app.extensions["flask-smorest"]["apis"][""]["ext_obj"].handle_http_exception(error)
