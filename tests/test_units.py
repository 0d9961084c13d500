"""abstain.text.split_units: the quotable units of a chunk, as every stage reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from abstain.ingest.blocks import code, definition, heading, list_item, paragraph, table_row
from abstain.text import UNIT_CHARS, Unit, split_sentences, split_units


def test_a_chunk_reads_back_as_its_units() -> None:
    blocks = [heading("5.2.0 — 2025-02-11"), paragraph("The service reads these. Both matter."),
              definition("APP_DB_URL", "PostgreSQL connection string. Required."),
              table_row(["Code", "Meaning"], ["E1002", "disk full. Free space."]),
              code("x = 1. y = 2\n\nprint(x)")]
    text = "\n".join(b.text for b in blocks if b is not None)
    assert split_units(text) == (
        Unit("5.2.0 — 2025-02-11"), Unit("The service reads these."), Unit("Both matter."),
        Unit("APP_DB_URL: PostgreSQL connection string. Required.", whole=True),
        Unit("Code: E1002; Meaning: disk full. Free space.", whole=True),
        Unit("x = 1. y = 2\n\nprint(x)", whole=True, code=True))


def test_a_task_list_item_is_read_without_its_checkbox() -> None:
    """A checklist's "- [ ] Connect to NW-Corp Wi-Fi" was quoted with its "[ ]"."""
    assert split_units("- [ ] Connect to the Wi-Fi\n- [x] Collect the badge\n1. [ ] Sign") == (
        Unit("Connect to the Wi-Fi", whole=True), Unit("Collect the badge", whole=True),
        Unit("Sign", whole=True))
    assert split_units("- [link] is a word") == (Unit("[link] is a word", whole=True),)


def test_a_long_item_is_read_sentence_by_sentence_without_its_marker() -> None:
    item = list_item("First sentence here. " + "word " * (UNIT_CHARS // 5) + "end.")
    assert item is not None
    units = split_units(item.text)
    assert units[0] == Unit("First sentence here.") and not any(u.whole for u in units)


@given(st.lists(st.text(alphabet="abc .:-", min_size=1, max_size=60), min_size=1, max_size=6))
def test_every_item_is_one_unit(items: list[str]) -> None:
    blocks = [b for b in (list_item(t) for t in items) if b is not None]
    units = split_units("\n".join(b.text for b in blocks))
    assert len(units) == len(blocks) and all(u.whole for u in units)
    assert split_sentences("\n".join(b.text for b in blocks)) == [u.text for u in units]


def test_a_german_date_or_ordinal_ends_no_sentence() -> None:
    """Found by a newcomer: "verfällt am 31. März" was cut after "31.", and the confident
    answer was "Resturlaub aus dem Vorjahr verfällt am 31." without its month."""
    assert split_sentences("Resturlaub verfällt am 31. März des Folgejahres. Das Gehalt wird "
                           "am 27. jedes Monats überwiesen.") == [
        "Resturlaub verfällt am 31. März des Folgejahres.",
        "Das Gehalt wird am 27. jedes Monats überwiesen."]
    # an English sentence ending on a number still ends there, before a lower-case one too
    assert split_sentences("The limit is 31. Next, read the file. Version 2. Then stop.") == [
        "The limit is 31.", "Next, read the file.", "Version 2.", "Then stop."]
    assert split_sentences("It exits with status 2. what does 2 mean?") == [
        "It exits with status 2.", "what does 2 mean?"]
