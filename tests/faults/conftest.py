"""Fixtures of the fault tests (see private_postgres.py for the throwaway PostgreSQL server)."""

from __future__ import annotations

import sys
from pathlib import Path

# httpplay, the HTTP tests' helpers for playing a table the way a frontend would.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))
