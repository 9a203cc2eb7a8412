"""The HTTP layer: flask-smorest blueprints, problem+json errors, and the web client's files."""

from __future__ import annotations

from flask import Flask

from . import audit, bodies, docs, errors, etags, events, frontend, health, hints, invites, metrics, stream, table_life, tables


def register_api(app: Flask) -> errors.ProblemApi:
    api = errors.ProblemApi(app)
    docs.install(api)
    docs.serve_swagger_ui(app)
    for module in (tables, table_life, stream, hints, invites, events, audit, health):
        api.register_blueprint(module.blp)
    errors.register(app)
    bodies.install(app)
    metrics.install(app)
    etags.install(app)
    app.register_blueprint(frontend.blp)  # the reference web client at / (not part of the API document)
    return api
