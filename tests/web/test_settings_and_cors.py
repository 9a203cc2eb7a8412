"""Settings come from the environment names of the contract; CORS follows COPAS_CORS_ORIGINS."""

from api import create_app
from api.config import Settings
from api.store import open_store


def test_settings_are_read_from_the_contracts_environment_names():
    settings = Settings.from_env(
        {
            "DATABASE_URL": "sqlite:///x.db",
            "COPAS_STALL_SECONDS": "60",
            "COPAS_CORS_ORIGINS": "https://a.example, https://b.example",
            "COPAS_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1,hooks.internal",
            "COPAS_PUBLIC_URL": "https://copas.example/",
            "COPAS_RATE_LIMIT": "0",
        }
    )
    assert settings.database_url == "sqlite:///x.db"
    assert settings.stall_seconds == 60
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert settings.webhook_allowed_hosts == ("127.0.0.1", "hooks.internal")
    assert settings.public_url == "https://copas.example"
    assert settings.rate_limit == 0


def test_defaults_are_the_48_hours_and_the_local_url():
    settings = Settings.from_env({})
    assert settings.database_url is None
    assert settings.stall_seconds == 172800
    assert settings.public_url == "http://127.0.0.1:8000"


def test_an_allowed_origin_may_call_the_api_from_a_browser():
    app = create_app(Settings(cors_origins=("https://front.example",)), store=open_store("memory://"))
    client = app.test_client()
    preflight = client.options(
        "/v1/tables",
        headers={
            "Origin": "https://front.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, Idempotency-Key, If-Match",
        },
    )
    assert preflight.headers["Access-Control-Allow-Origin"] == "https://front.example"
    allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
    assert "authorization" in allowed and "idempotency-key" in allowed and "if-match" in allowed
    created = client.post("/v1/tables", json={"name": "Ana"}, headers={"Origin": "https://front.example"})
    assert created.headers["Access-Control-Allow-Origin"] == "https://front.example"
    assert "etag" in created.headers.get("Access-Control-Expose-Headers", "").lower()


def test_another_origin_gets_no_cors_headers():
    app = create_app(Settings(cors_origins=("https://front.example",)), store=open_store("memory://"))
    response = app.test_client().get("/v1/health", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in response.headers


def test_a_star_allows_every_origin():
    app = create_app(Settings(cors_origins=("*",)), store=open_store("memory://"))
    response = app.test_client().get("/v1/health", headers={"Origin": "https://any.example"})
    assert response.headers["Access-Control-Allow-Origin"] in ("*", "https://any.example")
