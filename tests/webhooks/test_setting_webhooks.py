"""Setting a webhook: the secret is shown once, uncallable URLs and spectators are refused."""

from __future__ import annotations

from typing import Any

import pytest
from standardwebhooks import Webhook

from api.service import webhooks
from api.service.errors import InvalidWebhook


def patch_me(client: Any, table_id: str, token: str, body: dict[str, Any]) -> Any:
    return client.patch(f"/v1/tables/{table_id}/me", json=body, headers={"Authorization": f"Bearer {token}"})


def test_setting_a_webhook_returns_its_secret_once(client: Any, table: Any, receiver: Any) -> None:
    created = table.create()
    table_id, token = created["table_id"], created["token"]

    response = patch_me(client, table_id, token, {"webhook_url": receiver.url(0)})

    assert response.status_code == 200, response.json
    secret = response.json["webhook_secret"]
    assert secret.startswith("whsec_")
    Webhook(secret)  # the standardwebhooks package accepts it
    assert "webhook_secret" not in table.view(table_id, token)
    renamed = patch_me(client, table_id, token, {"name": "Ana Maria"})
    assert renamed.status_code == 200 and "webhook_secret" not in renamed.json
    again = patch_me(client, table_id, token, {"webhook_url": receiver.url(0)})
    assert again.json["webhook_secret"] != secret  # a new webhook gets a new secret
    removed = patch_me(client, table_id, token, {"webhook_url": None})
    assert removed.status_code == 200 and "webhook_secret" not in removed.json


@pytest.mark.parametrize(
    "url",
    [
        "ftp://127.0.0.1/hook",
        "file:///etc/passwd",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://[::ffff:169.254.169.254]/",
        "http://metadata.google.internal/",
        "http://10.0.0.1/hook",
        "http://192.168.1.10/hook",
        "http://169.254.10.20/hook",
        "http://[fe80::1]/hook",
        "http://user:pw@127.0.0.1/hook",
        "http://127.0.0.1:0/hook",
    ],
)
def test_webhook_urls_the_service_will_not_call_are_refused(client: Any, table: Any, url: str) -> None:
    created = table.create()

    response = patch_me(client, created["table_id"], created["token"], {"webhook_url": url})

    assert response.status_code == 422, (url, response.json)
    assert response.json["code"] == "validation_error"


def test_a_spectator_cannot_set_a_webhook(client: Any, table: Any, receiver: Any) -> None:
    created = table.create()
    for name in ("Bruno", "Carla", "Davi"):
        table.join(created["invite_code"], name)
    spectator = table.join(created["invite_code"], "Eva")  # a fifth joiner watches
    assert spectator["role"] == "spectator"

    response = patch_me(client, created["table_id"], spectator["token"], {"webhook_url": receiver.url(4)})

    assert response.status_code == 403
    assert response.json["code"] == "forbidden"


def test_metadata_addresses_are_refused_even_when_listed_as_allowed() -> None:
    allowed = ["169.254.169.254", "fd00:ec2::254", "metadata.google.internal"]
    for url in ("http://169.254.169.254/", "http://[fd00:ec2::254]/", "http://metadata.google.internal/", "http://[64:ff9b::a9fe:a9fe]/"):
        with pytest.raises(InvalidWebhook):
            webhooks.check_url(url, allowed)


def test_private_and_link_local_addresses_pass_only_when_listed() -> None:
    for url, host in (("http://10.0.0.1/h", "10.0.0.1"), ("http://[fe80::1]/h", "fe80::1"), ("http://127.0.0.1:9/h", "127.0.0.1")):
        with pytest.raises(InvalidWebhook):
            webhooks.check_url(url, [])
        assert webhooks.check_url(url, [host]) == url
    assert webhooks.check_url("https://93.184.215.14/hook", []) == "https://93.184.215.14/hook"


def test_a_signature_verifies_with_the_standard_webhooks_package() -> None:
    secret = webhooks.new_secret()
    body = '{"data":{},"timestamp":"2026-01-01T00:00:00Z","type":"your_turn"}'
    import time

    stamp = int(time.time())
    headers = {"webhook-id": "msg_1", "webhook-timestamp": str(stamp), "webhook-signature": webhooks.sign(secret, "msg_1", stamp, body)}

    assert Webhook(secret).verify(body, headers)["type"] == "your_turn"
