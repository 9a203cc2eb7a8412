"""The baseline of bench/serving.py: a bare flask-smorest app, same library versions.

    gunicorn -k gevent bench.bare:app      (BENCH_DATABASE_URL names the database;
                                            `create_schema` has made its table)

`GET /ping` answers a small JSON body through a marshmallow schema, and
`POST /rows` inserts one row (one INSERT, one commit) through the same
SQLAlchemy engine settings as the service's store.
"""

from __future__ import annotations

import os
from typing import Any

import marshmallow as ma
from flask import Flask
from flask_smorest import Api, Blueprint
from sqlalchemy import BigInteger, Column, MetaData, Table, Text, insert

from api.store.sql import make_engine

metadata = MetaData()
rows = Table("bench_rows", metadata, Column("id", BigInteger, primary_key=True, autoincrement=True), Column("body", Text))


class PingSchema(ma.Schema):
    ok = ma.fields.Boolean(required=True)


class RowSchema(ma.Schema):
    body = ma.fields.String(required=True)


def create_schema(url: str) -> None:
    """The baseline's one table, made once before gunicorn starts (its workers boot at once:
    each making it would race, and the loser would fail to boot)."""
    engine = make_engine(url)
    metadata.create_all(engine)
    engine.dispose()


def create_app() -> Flask:
    app = Flask(__name__)
    app.config.update(API_TITLE="bare", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    api = Api(app)
    blp = Blueprint("bare", __name__)
    engine = make_engine(os.environ["BENCH_DATABASE_URL"])

    @blp.route("/ping", methods=["GET"])
    @blp.response(200, PingSchema)
    def ping() -> dict[str, Any]:
        return {"ok": True}

    @blp.route("/rows", methods=["POST"])
    @blp.arguments(RowSchema)
    @blp.response(201, PingSchema)
    def add_row(body: dict[str, Any]) -> dict[str, Any]:
        with engine.begin() as conn:
            conn.execute(insert(rows).values(body=body["body"]))
        return {"ok": True}

    api.register_blueprint(blp)
    return app


app = create_app() if "BENCH_DATABASE_URL" in os.environ else None
