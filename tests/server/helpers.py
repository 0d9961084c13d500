"""Small helpers shared by the server tests."""

from __future__ import annotations

import json
from typing import Any

ANSWERED = "How do I reset the admin password?"
REFUSED = "What does ADR-0050 decide?"


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``event:`` / ``data:`` blocks -> [(kind, data)], strictly (every block must parse)."""
    events: list[tuple[str, dict[str, Any]]] = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        assert set(fields) == {"event", "data"}, block
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
