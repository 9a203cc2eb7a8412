"""Webhook URLs and secrets: which addresses the service agrees to call.

http or https only. Private, loopback, link-local and other non-public
addresses are refused unless the host is listed in
COPAS_WEBHOOK_ALLOWED_HOSTS; cloud metadata addresses are always refused.
The check runs when the URL is set and again before every delivery, since a
name can resolve elsewhere later.
"""

from __future__ import annotations

import base64
import ipaddress
import secrets
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from .errors import InvalidWebhook

METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata", "instance-data", "metadata.azure.com"})
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254", "192.0.0.192")
)


def new_secret() -> str:
    """A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def check_url(url: str, allowed_hosts: Iterable[str], *, resolve: bool = True) -> str:
    """The URL if the service may call it, else InvalidWebhook saying why."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise InvalidWebhook(f"not a valid URL: {error}") from error
    if parts.scheme not in ("http", "https"):
        raise InvalidWebhook("webhook URLs are http or https")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise InvalidWebhook("the webhook URL has no host")
    if parts.username or parts.password:
        raise InvalidWebhook("webhook URLs carry no credentials")
    if host in METADATA_HOSTS:
        raise InvalidWebhook("metadata addresses are never called")
    allowed = {h.lower().rstrip(".") for h in allowed_hosts}
    for address in _addresses(host, port or (443 if parts.scheme == "https" else 80), resolve):
        if address in METADATA_ADDRESSES:
            raise InvalidWebhook("metadata addresses are never called")
        if not address.is_global and host not in allowed and str(address) not in allowed:
            raise InvalidWebhook(f"{host} is not a public address; list it in COPAS_WEBHOOK_ALLOWED_HOSTS to allow it")
    return url


def _addresses(host: str, port: int, resolve: bool) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    if not resolve:
        return []
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise InvalidWebhook(f"the host {host} cannot be resolved") from error
    return [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
