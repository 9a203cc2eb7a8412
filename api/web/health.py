"""Liveness and database readiness."""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from . import schemas
from .context import service
from .docs import operation

blp = Blueprint("health", __name__, url_prefix="/v1/health", description="Is the service up, and can it reach its database?")


@blp.route("", methods=["GET"])
@blp.response(200, schemas.HealthSchema)
@blp.alt_response(503, schema=schemas.HealthSchema, description="The database cannot be reached.")
@operation(blp, "getHealth", public=True, unavailable=False)
def health() -> Any:
    """Liveness and database readiness: 200 when the database answers, 503 when it does not.

    For load balancers and monitors; needs no token.
    """
    database = service().store.ping()
    body = {"status": "ok" if database else "degraded", "database": database}
    return body if database else (body, 503)
