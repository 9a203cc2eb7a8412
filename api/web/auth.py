"""Bearer tokens: who is asking, for which table."""

from __future__ import annotations

from flask import request

from ..service.tables import Access
from .context import service

BEARER_SECURITY = [{"bearerAuth": []}]


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def access(table_id: str) -> Access:
    """The caller's access to `table_id` (401 without a token, 404 for another table's)."""
    return service().authenticate(table_id, bearer_token())
