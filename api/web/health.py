"""Readiness (`/v1/health`: can this node serve, is its database there?) and liveness (`/v1/health/live`).

Readiness answers within 2 s whatever the database does (the store's ping is
bounded); a load balancer takes the node out while it says 503. Liveness asks
nothing of the database: restart the process only when it fails.
"""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from . import schemas
from .context import service
from .docs import operation
from .errors import RETRY_AFTER_SECONDS

blp = Blueprint("health", __name__, url_prefix="/v1/health", description="Is the service up, and can it reach its database?")


@blp.route("", methods=["GET"])
@blp.response(200, schemas.HealthSchema)
@blp.alt_response(503, schema=schemas.HealthSchema, description="The database cannot be reached (within 1.5 s).")
@operation(blp, "getHealth", public=True, unavailable=False)
def health() -> Any:
    """Readiness: 200 when the database answers, 503 (with Retry-After) when it does not.

    For load balancers and monitors; needs no token. Answers within 2 s whatever the database does.
    """
    store = service().store
    database = store.ping()
    body = {"status": "ok" if database else "degraded", "database": database, "listener": store.listener_state(), "waiters": service().versions.waiting}
    return body if database else (body, 503, {"Retry-After": str(RETRY_AFTER_SECONDS)})


@blp.route("/live", methods=["GET"])
@blp.response(200, schemas.LivenessSchema)
@operation(blp, "getLiveness", public=True, unavailable=False)
def live() -> Any:
    """Liveness: the process answers (the database is not asked).

    For process supervisors: restart the node only when this fails; a database that is away shows in `/v1/health`.
    """
    return {"status": "ok"}
