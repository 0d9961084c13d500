"""Answers and citations follow the document's structure (issue 22): a list item, table row
or definition is answered alone, a heading's date is quotable, a reST page reads clean.
The documents are written here; the real MiniLM embedder and the default pipeline answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from abstain.answer import Answer
from abstain.embed.base import Embedder
from abstain.pipeline import Pipeline
from abstain.records import AnswerSentence, Sentence, render_sentences
from abstain.stores.sqlite import SQLiteStore
from abstain.verify.outcome import as_written

HANDBOOK = """\
# Engineering handbook

## Configuration reference

The service reads these environment variables:

- `APP_DB_URL`: PostgreSQL connection string. Required.
- `APP_TIMEOUT`: request timeout in seconds. Default 30.
- `APP_LOG_LEVEL`: how much to log. Default info.

## Error codes

| Code | Meaning | What to do |
|---|---|---|
| E1001 | connection refused | check that the database host is reachable |
| E1002 | disk full | free space on the data volume |
| E1003 | token expired | log in again |

## Changelog

### 5.2.0 — 2025-02-11

- Fixed the timeout handling of long uploads.

### 5.1.0 — 2024-11-02

- Added the log level setting.
"""

GUIDE_RST = """\
Client guide
============

Installing
----------

Install the client with :command:`pip`:

.. code-block:: bash

    pip install acme-client

Connecting
----------

The :func:`~acme.client.connect` function opens a connection to the server; see
:ref:`retries` for what happens when it fails.

.. _retries:

Retries
-------

A failed request is retried three times, waiting :math:`2^n` seconds between tries.
"""


@pytest.fixture(scope="module")
def pipe(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Iterator[Pipeline]:
    folder = tmp_path_factory.mktemp("docs")
    (folder / "handbook.md").write_text(HANDBOOK)
    (folder / "guide.rst").write_text(GUIDE_RST)
    with Pipeline(SQLiteStore(folder / "kb.db"), minilm) as pipe:
        report = pipe.ingest([folder / "handbook.md", folder / "guide.rst"])
        assert not report.skipped, report.skipped
        yield pipe


def quotes_hold(answer: Answer) -> bool:
    return bool(answer.citations) and all(
        c.quote in answer.evidence[(c.evidence_n or c.n) - 1].text for c in answer.citations)


def test_the_default_of_an_item_without_one_is_never_the_next_items(pipe: Pipeline) -> None:
    answer = pipe.ask("What is the default value of APP_DB_URL?")
    assert "30" not in answer.text and "Default" not in answer.text
    if answer.answered:
        assert "Required" in answer.text and quotes_hold(answer)


def test_the_readers_quote_keeps_one_item_too(pipe: Pipeline) -> None:
    """With the reading deciding, the reader's window spans APP_DB_URL's item and the next
    one, which states a default: the quote keeps the item that holds what is asked."""
    from abstain.presets import Preset

    reading = Pipeline(pipe.store, pipe.embedder,
                       thresholds=Preset.BALANCED.thresholds(reading_decides=True))
    answer = reading.ask("What is the default value of APP_DB_URL?")
    assert "30" not in answer.text and "Default" not in answer.text
    if answer.answered:
        assert "Required" in answer.text and quotes_hold(answer)


def test_a_list_item_is_answered_whole(pipe: Pipeline) -> None:
    answer = pipe.ask("What is the default value of APP_TIMEOUT?")
    assert answer.answered
    assert answer.text == "APP_TIMEOUT: request timeout in seconds. Default 30. [1]"
    assert quotes_hold(answer)


def test_a_table_row_is_answered_alone_with_its_header(pipe: Pipeline) -> None:
    answer = pipe.ask("What does error E1002 mean?")
    assert answer.answered
    assert answer.text == ("Code: E1002; Meaning: disk full; What to do: free space on the "
                           "data volume [1]")
    assert quotes_hold(answer)


def test_a_changelog_heading_date_is_answered_and_cited(pipe: Pipeline) -> None:
    answer = pipe.ask("When was 5.2.0 released?")
    assert answer.answered
    assert "2025-02-11" in answer.text and "2024-11-02" not in answer.text
    assert quotes_hold(answer)
    assert any("2025-02-11" in c.quote for c in answer.citations)


def test_a_rst_page_with_roles_and_code_reads_clean(pipe: Pipeline) -> None:
    answer = pipe.ask("Which function opens a connection to the server?")
    assert answer.answered and quotes_hold(answer)
    assert "connect function opens a connection" in answer.text
    for noise in (":func:", ":ref:", "~acme", "``", ".. "):
        assert noise not in answer.text
    retries = pipe.ask("How many times is a failed request retried?")
    assert retries.answered and "three times" in retries.text and ":math:" not in retries.text


def test_a_code_block_is_kept_whole(pipe: Pipeline) -> None:
    texts = [ev.text for ev in pipe.search("pip install acme-client").evidence]
    assert any("```\npip install acme-client\n```" in t for t in texts)


RUNBOOK = """\
# Gateway runbook

## Restarting the gateway

To restart the gateway without dropping connections, drain it first:

```bash
twctl drain --grace 90s
systemctl restart tidewater-gw
twctl undrain
```

The drain waits up to 90 seconds for open connections to close.

## Daily checks

Every morning the on-call engineer runs three checks:

- Confirm the gateway health page shows green.
- Rotate the access log with twctl logrotate.
- Archive yesterday's logs to tw-logs-archive.
"""


@pytest.fixture(scope="module")
def runbook(tmp_path_factory: pytest.TempPathFactory, minilm: Embedder) -> Iterator[Pipeline]:
    folder = tmp_path_factory.mktemp("runbook")
    (folder / "runbook.md").write_text(RUNBOOK)
    with Pipeline(SQLiteStore(folder / "kb.db"), minilm) as pipe:
        pipe.ingest([folder / "runbook.md"])
        yield pipe


def test_a_quoted_code_block_keeps_its_lines(runbook: Pipeline) -> None:
    """A command quoted on one line would not run (found by a newcomer: the three lines of
    a restart procedure came out as one)."""
    restart = runbook.ask("How do I restart the gateway?")
    assert restart.answered, restart.refusal
    assert ("drain it first: [1]\n```\ntwctl drain --grace 90s\nsystemctl restart tidewater-gw"
            "\ntwctl undrain\n```\n[1]\nThe drain waits") in restart.text


def test_a_quoted_lead_in_brings_its_whole_list(runbook: Pipeline) -> None:
    """Found by a newcomer: "runs three checks:" was quoted with one or two of the three."""
    checks = runbook.ask("What are the daily checks for the gateway?")
    assert checks.answered, checks.refusal
    assert ("runs three checks: [1] Confirm the gateway health page shows green. [1] Rotate the "
            "access log with twctl logrotate. [1] Archive yesterday's logs to tw-logs-archive. "
            "[1]") in checks.text


def test_code_keeps_its_indentation_and_prose_its_one_line() -> None:
    code = Sentence("def probe(client):\n    for attempt in range(3):\n        return True\n", (2,))
    prose = Sentence("The probe  retries\tthree times.", (1,))
    shown = [AnswerSentence(as_written(s).text, s.cites) for s in (prose, code, prose)]
    assert render_sentences(shown) == (
        "The probe retries three times. [1]\n```\ndef probe(client):\n    for attempt in "
        "range(3):\n        return True\n```\n[2]\nThe probe retries three times. [1]")


def test_the_two_quotes_agree_when_they_share_a_sentence(runbook: Pipeline) -> None:
    from abstain.generate.extractive import quotes_agree
    from abstain.question import Question

    answer = runbook.ask("How long does the drain wait for open connections?")
    assert answer.answered and any(ev.read for ev in answer.evidence)
    question = Question.parse(answer.question)
    assert quotes_agree(question, answer.evidence) == 1.0
    assert quotes_agree(question, [ev for ev in answer.evidence if not ev.read]) == 0.0


def test_each_quoted_changelog_entry_says_which_release_it_is_from() -> None:
    """Two entries quoted for "which release fixed …?" (pendulum's week_of_month, fixed in
    2.1.0 and again in 3.0.0): the second carried no release, so the answer read as 2.1.0."""
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
    from abstain.generate.extractive import with_the_typed_heading
    from abstain.question import Question
    from abstain.records import Generation

    def entry(n: int, text: str, release: str) -> Evidence:
        doc = Document("d", "default", "CHANGELOG.md", "Changelog", "h")
        return Evidence(FusedHit(f"c{n}", 1.0), Chunk(f"c{n}", "d", ChunkKind.CHILD, text, n,
                                                      heading_path=(release, "Fixed")), doc, text)

    evidence = [entry(0, "Fixed an error where week_of_month was wrong (#446).",
                      "2.1.0 - 2020-03-07"),
                entry(1, "Fixed week_of_month for edge cases in January and December.",
                      "3.0.0 - 2023-12-07")]
    quote = Generation((Sentence("2.1.0 - 2020-03-07", (1,)), Sentence(evidence[0].text, (1,)),
                        Sentence(evidence[1].text, (2,))), model="extractive")
    question = Question.parse("week_of_month was wrong in late December, which release fixed it?")
    texts = [s.text for s in with_the_typed_heading(question, evidence, quote).sentences]
    assert texts == ["2.1.0 - 2020-03-07", evidence[0].text, "3.0.0 - 2023-12-07",
                     evidence[1].text]
    # a number asked is no release: the quote is left as it was
    asked_number = Question.parse("How many edge cases did the week_of_month fix cover?")
    assert with_the_typed_heading(asked_number, evidence, quote) == quote


def test_an_entry_quoted_after_another_release_s_entry_gets_its_own_release_again() -> None:
    """Entries of 3.0.0, 2.1.0 and 3.0.0 again (another chunk), quoted in that order: the
    third stood under 2.1.0's line, since 3.0.0's was already in the quote."""
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
    from abstain.generate.extractive import with_the_typed_heading
    from abstain.question import Question
    from abstain.records import Generation

    def entry(n: int, text: str, release: str) -> Evidence:
        doc = Document("d", "default", "CHANGELOG.md", "Changelog", "h")
        return Evidence(FusedHit(f"c{n}", 1.0), Chunk(f"c{n}", "d", ChunkKind.CHILD, text, n,
                                                      heading_path=(release,)), doc, text)

    evidence = [entry(0, "Fixed week_of_month in January.", "3.0.0"),
                entry(1, "Fixed week_of_month for leap years.", "2.1.0"),
                entry(2, "Fixed week_of_month in December.", "3.0.0")]
    quote = Generation(tuple(Sentence(e.text, (n,)) for n, e in enumerate(evidence, 1)),
                       model="extractive")
    question = Question.parse("Which release fixed week_of_month?")
    texts = [s.text for s in with_the_typed_heading(question, evidence, quote).sentences]
    assert texts == ["3.0.0", evidence[0].text, "2.1.0", evidence[1].text, "3.0.0",
                     evidence[2].text]
