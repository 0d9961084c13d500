"""Markdown front matter: a YAML mapping between ``---`` fences, read with PyYAML's ``safe_load``.

YAML decides what a value is (``curated: no`` is False, ``tags: [a, b]`` a list,
``date: 2024-05-01`` a date); this module then checks the keys abstain acts on:

=============  ===============================================================
``title``      text (a number is taken as its text)
``curated``    a boolean (``true/false``, ``yes/no``, ``on/off``, or 0/1)
``published``  a boolean, as ``curated``
``tags``       a list of texts (a single text is a list of one)
``date``       a date (``2024-05-01``, or the same quoted, or an ISO date-time);
               ``updated`` likewise
=============  ===============================================================

Any other key is kept as metadata as YAML read it. A value of the wrong type is
an :class:`~abstain.errors.IngestError` naming the file and the key: a document
is never curated or unpublished by accident.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from abstain.errors import IngestError

_FENCE = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)
_BOOLEAN_KEYS = ("curated", "published")
_DATE_KEYS = ("date", "updated")


def split_front_matter(text: str, *, source: str) -> tuple[dict[str, Any], str]:
    """(checked metadata, body); no front matter gives ``({}, text)``."""
    import yaml

    match = _FENCE.match(text)
    if not match:
        return {}, text
    try:
        loaded = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise IngestError(source, f"front matter is not valid YAML{where}: {problem}") from exc
    if loaded is None:
        return {}, text[match.end():]
    if not isinstance(loaded, dict):
        raise IngestError(source, "front matter must be a mapping of keys to values "
                                  f"(key: value lines), not a {type(loaded).__name__}")
    meta = {str(k).strip().lower(): v for k, v in loaded.items()}
    return {key: _check(source, key, value) for key, value in meta.items()}, text[match.end():]


def _check(source: str, key: str, value: Any) -> Any:
    if key == "title":
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value).strip()
        raise _invalid(source, key, value, "a text")
    if key in _BOOLEAN_KEYS:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise _invalid(source, key, value, "true or false")
    if key == "tags":
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
            return [str(v) for v in value]
        raise _invalid(source, key, value, "a list of texts")
    if key in _DATE_KEYS:
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        if isinstance(value, str):  # quoted ("2020-04-01"), as static-site generators write it
            written = _iso_date(value.strip())
            if written is not None:
                return written
        raise _invalid(source, key, value, "a date such as 2024-05-01")
    return value


def _iso_date(text: str) -> dt.date | None:
    """The day of an ISO 8601 date or date-time written as text ("2020-04-01",
    "2020-04-01T10:00:00Z"); None for anything else ("16 February 2019" stays an error)."""
    try:
        return dt.datetime.fromisoformat(text).date()  # a date alone reads as its midnight
    except ValueError:
        return None


def _invalid(source: str, key: str, value: Any, expected: str) -> IngestError:
    return IngestError(source, f"front matter key {key!r} must be {expected}, "
                               f"not {value!r}; fix the value in the file")
