from api import create_app
from api.config import Settings
from api.store import open_store
from api.web.ratelimit import TokenBuckets


def test_a_client_past_its_rate_gets_429_problem_with_retry_after():
    app = create_app(Settings(rate_limit=5), store=open_store("memory://"))
    client = app.test_client()
    codes = [client.get("/v1/health").status_code for _ in range(12)]
    assert codes[:10] == [200] * 10  # a burst of twice the rate
    refused = client.get("/v1/health")
    assert refused.status_code == 429
    assert refused.content_type == "application/problem+json"
    assert refused.json["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1


def test_clients_with_different_tokens_have_separate_buckets():
    buckets = TokenBuckets(rate=1, burst=1)
    assert buckets.take("a", now=0.0) == 0
    assert buckets.take("a", now=0.0) > 0
    assert buckets.take("b", now=0.0) == 0


def test_a_bucket_refills_with_time():
    buckets = TokenBuckets(rate=2, burst=2)
    assert buckets.take("a", 0.0) == 0 and buckets.take("a", 0.0) == 0
    assert buckets.take("a", 0.0) > 0
    assert buckets.take("a", 0.6) == 0


def test_a_rate_of_zero_turns_the_limit_off():
    app = create_app(Settings(rate_limit=0), store=open_store("memory://"))
    client = app.test_client()
    assert all(client.get("/v1/health").status_code == 200 for _ in range(50))
