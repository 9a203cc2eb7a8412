"""Provable deals: the commitment published at each deal, checkable by anyone.

commitment = lowercase hex SHA-256 of the UTF-8 JSON text
`{"hands":[[seat 0], [seat 1], [seat 2], [seat 3]],"salt":"<64 hex>"}`,
keys sorted, no spaces, each hand sorted by suit C D H S then rank 2..A.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from .cards import Card, sorted_cards


def commitment_text(hands: Sequence[Sequence[Card]], salt: str) -> str:
    document = {"hands": [list(sorted_cards(hand)) for hand in hands], "salt": salt}
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def deal_commitment(hands: Sequence[Sequence[Card]], salt: str) -> str:
    return hashlib.sha256(commitment_text(hands, salt).encode("utf-8")).hexdigest()


def commitment_matches(commitment: str, hands: Sequence[Sequence[Card]], salt: str) -> bool:
    return deal_commitment(hands, salt) == commitment
