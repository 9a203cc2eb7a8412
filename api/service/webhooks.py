"""Webhook URLs and secrets: which addresses the service agrees to call, and how it signs.

http or https only. Private, loopback, link-local and other non-public
addresses are refused unless the host is listed in
COPAS_WEBHOOK_ALLOWED_HOSTS; cloud metadata addresses are always refused, even
when listed (also when written as IPv4-mapped or NAT64 IPv6). The check runs
when the URL is set and again before every delivery, since a name can resolve
elsewhere later; the dispatcher then connects to the very addresses that were
checked (`checked_addresses`), so a second DNS answer cannot slip past.

Secrets and signatures follow Standard Webhooks 1.0: the secret is `whsec_`
and a base64 key; the signature is `v1,` and the base64 HMAC-SHA256 of
`"{id}.{timestamp}.{body}"` keyed with the decoded key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import secrets
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from .errors import InvalidWebhook

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

SECRET_PREFIX = "whsec_"
METADATA_HOSTS = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.com",
        "metadata.platformequinix.com",
    }
)
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, ...
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.169.123",  # AWS time sync
        "169.254.169.253",  # AWS DNS
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
        "fd00:ec2::254",  # AWS over IPv6
        "fd00:ec2::23",  # AWS DNS over IPv6
    )
)
NAT64 = ipaddress.ip_network("64:ff9b::/96")


class UnresolvableHost(InvalidWebhook):
    """The webhook's host has no address now (possibly for a moment: a delivery retries)."""


def new_secret() -> str:
    """A Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def signing_key(secret: str) -> bytes:
    """The HMAC key of a `whsec_` secret (the base64-decoded part after the prefix)."""
    encoded = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError("a webhook secret is whsec_ and base64") from error
    if not key:
        raise ValueError("a webhook secret may not be empty")
    return key


def sign(secret: str, message_id: str, timestamp: int, body: str) -> str:
    """The `webhook-signature` header value for one delivery."""
    digest = hmac.new(signing_key(secret), f"{message_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def check_url(url: str, allowed_hosts: Iterable[str], *, resolve: bool = True) -> str:
    """The URL if the service may call it, else InvalidWebhook saying why."""
    checked_addresses(url, allowed_hosts, resolve=resolve)
    return url


def checked_addresses(url: str, allowed_hosts: Iterable[str], *, resolve: bool = True) -> list[IPAddress]:
    """The addresses the URL's host stands for, all of them callable; else InvalidWebhook.

    With `resolve=False` a host name is checked by name only (no addresses)."""
    if any(ord(ch) <= 0x20 or ord(ch) == 0x7F for ch in url):
        raise InvalidWebhook("webhook URLs contain no spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise InvalidWebhook(f"not a valid URL: {error}") from error
    if parts.scheme.lower() not in ("http", "https"):
        raise InvalidWebhook("webhook URLs are http or https")
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise InvalidWebhook("the webhook URL has no host")
    if parts.username is not None or parts.password is not None:
        raise InvalidWebhook("webhook URLs carry no credentials")
    if port == 0:
        raise InvalidWebhook("port 0 cannot be called")
    if host in METADATA_HOSTS:
        raise InvalidWebhook("metadata addresses are never called")
    allowed = {h.strip().lower().rstrip(".").strip("[]") for h in allowed_hosts}
    addresses = _addresses(host, port or (443 if parts.scheme.lower() == "https" else 80), resolve)
    for address in addresses:
        if is_metadata(address):
            raise InvalidWebhook("metadata addresses are never called")
        if not _is_public(address) and host not in allowed and str(address) not in allowed:
            raise InvalidWebhook(f"{host} is not a public address; list it in COPAS_WEBHOOK_ALLOWED_HOSTS to allow it")
    return addresses


def is_metadata(address: IPAddress) -> bool:
    return any(candidate in METADATA_ADDRESSES for candidate in _forms(address))


def _is_public(address: IPAddress) -> bool:
    # An IPv6 address that embeds an IPv4 one is as public as the IPv4 address.
    return all(candidate.is_global and not candidate.is_multicast for candidate in _forms(address))


def _forms(address: IPAddress) -> list[IPAddress]:
    forms: list[IPAddress] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            forms.append(address.ipv4_mapped)
        if address in NAT64:
            forms.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        if address.sixtofour is not None:
            forms.append(address.sixtofour)
        if address.teredo is not None:
            forms.extend(address.teredo)
    return forms


def _addresses(host: str, port: int, resolve: bool) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host.strip("[]").split("%")[0])]
    except ValueError:
        pass
    if not resolve:
        return []
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as error:
        raise UnresolvableHost(f"the host {host} cannot be resolved") from error
    addresses: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise UnresolvableHost(f"the host {host} cannot be resolved")
    return addresses
