"""The reference web client: static files at `/` and `/client/...`, nothing rendered here.

The page talks to the public API like any third-party frontend would; this
module only hands out its files. The Content-Security-Policy keeps the page to
its own origin: no script, style or request may reach anywhere else.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

FILES = Path(__file__).parent / "client"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

blp = Blueprint("frontend", __name__, static_folder=str(FILES), static_url_path="/client")


@blp.route("/", methods=["GET"])
def index() -> Response:
    """The page; its scripts and styles are under /client/."""
    return send_from_directory(FILES, "index.html", max_age=0)


@blp.after_request
def protect(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"  # the invite code lives in the page's address
    response.cache_control.no_cache = True  # revalidate: a new release shows at once
    return response
