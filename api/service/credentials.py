"""Bearer tokens and invite codes: random, shown once, stored only as hashes."""

from __future__ import annotations

import hashlib
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(32)  # 256 random bits


def new_invite_code() -> str:
    return secrets.token_urlsafe(16)  # 128 random bits


def new_table_id() -> str:
    return secrets.token_hex(10)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()
