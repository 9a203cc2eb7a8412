"""Query-string and header arguments: none sent reads as the schema's defaults; anything sent is parsed as before."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
import pytest
from flask import Flask
from flask_smorest import Api, Blueprint

from api.web.arguments import header_arguments, query_arguments


class PageQuery(ma.Schema):
    after = ma.fields.Integer(load_default=0, validate=ma.validate.Range(min=0))
    limit = ma.fields.Integer(load_default=100)
    cursor = ma.fields.String()  # no default: absent unless given


class Preconditions(ma.Schema):
    class Meta:
        unknown = ma.EXCLUDE

    if_match = ma.fields.String(data_key="If-Match", validate=ma.validate.Length(max=5))
    retries = ma.fields.Integer(data_key="X-Retries", load_default=0)


@pytest.fixture
def client() -> Any:
    app = Flask(__name__)
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    api = Api(app)
    blp = Blueprint("pages", __name__)

    @blp.route("/pages/<name>")
    @query_arguments(blp, PageQuery())
    @blp.response(200)
    def pages(query: dict[str, Any], name: str) -> dict[str, Any]:
        query["seen"] = True  # a handler may change its arguments: the defaults stay as they were
        return {"name": name, **query}

    @blp.route("/moves/<name>", methods=["POST"])
    @query_arguments(blp, PageQuery())
    @header_arguments(blp, Preconditions())
    @blp.response(200)
    def moves(query: dict[str, Any], headers: dict[str, Any], name: str) -> dict[str, Any]:
        return {"name": name, "query": query, "headers": headers}

    api.register_blueprint(blp)
    return app.test_client()


def test_no_query_string_gives_the_defaults_the_parse_would_give(client: Any) -> None:
    assert client.get("/pages/a").get_json() == {"name": "a", "after": 0, "limit": 100, "seen": True}
    assert client.get("/pages/b?").get_json() == {"name": "b", "after": 0, "limit": 100, "seen": True}


def test_a_query_string_is_parsed_and_validated(client: Any) -> None:
    assert client.get("/pages/a?after=5&cursor=x").get_json() == {"name": "a", "after": 5, "limit": 100, "cursor": "x", "seen": True}
    assert client.get("/pages/a?after=-1").status_code == 422


def test_the_arguments_are_documented_as_flask_smorest_documents_them(client: Any) -> None:
    document = client.application.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    parameters = document["paths"]["/pages/{name}"]["get"]["parameters"]
    assert {(p["name"], p["in"]) for p in parameters} >= {("after", "query"), ("limit", "query"), ("cursor", "query")}


def test_no_header_of_the_schema_gives_its_defaults_after_the_other_arguments(client: Any) -> None:
    answer = client.post("/moves/a?after=2", headers={"X-Other": "1"}).get_json()
    assert answer == {"name": "a", "query": {"after": 2, "limit": 100}, "headers": {"retries": 0}}


def test_a_header_of_the_schema_is_parsed_and_validated(client: Any) -> None:
    assert client.post("/moves/a", headers={"If-Match": '"12"'}).get_json()["headers"] == {"if_match": '"12"', "retries": 0}
    assert client.post("/moves/a", headers={"X-Retries": "3"}).get_json()["headers"] == {"retries": 3}
    assert client.post("/moves/a", headers={"If-Match": '"123456"'}).status_code == 422
