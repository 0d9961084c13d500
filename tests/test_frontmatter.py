"""Front matter is YAML (safe_load); wrong values are errors naming file and key (issue 14.4)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from abstain.embed import HashingEmbedder
from abstain.errors import IngestError
from abstain.ingest.parse import parse_file, parse_string
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore


def _meta(front: str) -> dict[str, object]:
    return parse_string(f"---\n{front}\n---\n# T\n\nbody text", name="doc.md").metadata


@pytest.mark.parametrize(("value", "expected"), [
    ("no", False), ("off", False), ("false", False), ("0", False), ("False", False),
    ("yes", True), ("on", True), ("true", True), ("1", True),
])
def test_yaml_booleans_mean_what_they_say(value: str, expected: bool) -> None:
    assert _meta(f"curated: {value}\npublished: {value}") == {"curated": expected,
                                                              "published": expected}


def test_lists_dates_titles_and_other_keys() -> None:
    meta = _meta("title: 2024\ntags: [backup, ops]\ndate: 2024-05-01\nupdated: 2024-06-02 10:00:00"
                 "\nowner: {team: infra}\nAuthor: Ann")
    assert meta == {"title": "2024", "tags": ["backup", "ops"], "date": dt.date(2024, 5, 1),
                    "updated": dt.date(2024, 6, 2), "owner": {"team": "infra"},
                    "author": "Ann"}
    assert _meta("tags: single") == {"tags": ["single"]}
    # quoted, as Hugo and Jekyll sites write them: YAML reads text, the day is still plain
    assert _meta('date: "2020-04-01"\nupdated: \'2021-02-03T10:00:00Z\'') == {
        "date": dt.date(2020, 4, 1), "updated": dt.date(2021, 2, 3)}
    assert _meta("") == {}


@pytest.mark.parametrize(("front", "message"), [
    ("curated: maybe", "front matter key 'curated' must be true or false, not 'maybe'"),
    ("curated: 2", "key 'curated' must be true or false, not 2"),
    ('published: "no"', "key 'published' must be true or false, not 'no'"),
    ("tags: {a: 1}", "key 'tags' must be a list of texts"),
    ("date: yesterday", "key 'date' must be a date such as 2024-05-01"),
    ('date: "16 February 2019"', "key 'date' must be a date such as 2024-05-01"),
    ('updated: "2020-13-01"', "key 'updated' must be a date such as 2024-05-01"),
    ("title: [a, b]", "key 'title' must be a text"),
    ("title: a\ncurated: yes: no", "front matter is not valid YAML (line 3): mapping values"),
    ("- just\n- a list", "front matter must be a mapping"),
])
def test_invalid_values_name_the_file_and_key(tmp_path: Path, front: str, message: str) -> None:
    f = tmp_path / "doc.md"
    f.write_text(f"---\n{front}\n---\n# T\n\nbody text")
    with pytest.raises(IngestError, match=r"doc\.md") as info:
        parse_file(f)
    assert message in str(info.value)


def test_curated_no_is_not_curated_and_published_no_is_hidden(tmp_path: Path) -> None:
    db = tmp_path / "kb.db"
    tmp_path = tmp_path / "docs"
    tmp_path.mkdir()
    (tmp_path / "a.md").write_text("---\ncurated: no\npublished: no\n---\n# A\n\nalpha text")
    (tmp_path / "b.md").write_text("---\ncurated: yes\n---\n# B\n\nbravo text")
    (tmp_path / "c.md").write_text("---\ncurated: perhaps\n---\n# C\n\ncharlie text")
    with Pipeline(SQLiteStore(db), HashingEmbedder()) as pipe:
        report = pipe.ingest([tmp_path])
        docs = {Path(d.source).name: (d.curated, d.published) for d in pipe.store.list_documents()}
        assert docs == {"a.md": (False, False), "b.md": (True, True)}
        assert report.skipped == [(str(tmp_path / "c.md"), "front matter key 'curated' must be "
                                   "true or false, not 'perhaps'; fix the value in the file")]
        assert pipe.store.search_text("alpha", workspace="default", limit=5) == []
