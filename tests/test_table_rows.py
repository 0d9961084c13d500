"""A table row read by its columns (abstain.rerank.rows), where the reader reads it as prose."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from abstain.embed import Embedder, HashingEmbedder
from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit, RowVerdict
from abstain.pipeline import Pipeline
from abstain.question import Question
from abstain.rerank import rows
from abstain.rerank.reading import read_evidence
from abstain.rerank.rows import Row
from abstain.stores.sqlite import SQLiteStore

ORDER = ("- order_id: ORD-00411; customer: Customer 109; city: Tartu; status: shipped; "
         "total_eur: 268.68; placed_on: 2026-08-08")
OTHER = ("- order_id: ORD-00412; customer: Customer 258; city: Cork; status: pending; "
         "total_eur: 113.33; placed_on: 2026-10-21")


class EveryRowReader:
    """Reads every window as answering, as the shipped reader reads most table rows."""

    name = "every-row"

    def logits(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        return np.full((len(b), 3), 3.0, dtype=np.float32)


def _verdict(question: str, row: str = ORDER) -> RowVerdict | None:
    parsed = Row.parse(row)
    assert parsed is not None
    return rows.verdict(Question.parse(question), parsed)


def test_a_row_is_its_column_value_pairs_and_prose_is_not_a_row() -> None:
    parsed = Row.parse(ORDER)
    assert parsed is not None and parsed.cells[2] == ("city", "Tartu")
    assert Row.parse(ORDER.removeprefix("- ")) == parsed  # the reader's windows drop the marker
    assert Row.parse("Note: the timeout is 30 seconds.") is None  # one pair: a sentence
    assert Row.parse("- alpha; beta: gamma") is None  # a part without a column
    assert Row.parse("When the server starts it reads the file: then; it binds: port") is None


@pytest.mark.parametrize("question", [
    "Which city was ORD-00411 shipped to?",
    "What is the status of order ORD-00411?",
    "Which customer is listed for order ORD-00411?",  # the verb ends what is asked for
    "What is the total_eur value of ORD-00411?",  # every cell is a value
    "When was ORD-00411 placed?",
    "What is the total of order ORD-00411?",
])
def test_a_row_answers_when_an_asked_word_names_one_of_its_columns(question: str) -> None:
    assert _verdict(question) is RowVerdict.ANSWERS


@pytest.mark.parametrize("question", [
    "Which carrier shipped ORD-00411?",
    "What is the discount on ORD-00411?",
    "What is the customer satisfaction score of ORD-00411?",  # "customer" alone is a column
    "What's the date of birth of Customer 109?",  # "date" is not "placed_on"
])
def test_a_row_does_not_answer_what_it_has_no_column_for(question: str) -> None:
    assert _verdict(question) is RowVerdict.DOES_NOT_ANSWER


@pytest.mark.parametrize("question", [
    "How much did ORD-00411 cost?",  # an amount: total_eur may hold it
    "Where was ORD-00411 sent?",  # a place: city may hold it
    "Who ordered ORD-00411?",  # a person: customer may hold it
    "What is ORD-00411 called?",  # a name
    "Which carrier shipped ORD-00999?",  # not this row's record
    "Which carrier do we use?",  # names no record
])
def test_the_reader_decides_where_the_columns_cannot_tell(question: str) -> None:
    assert _verdict(question) is None


PRODUCT = ("- SKU: SKU-00170; product_name: Cedar Saucepan M; category: Kitchen; "
           "price_usd: 305.87; stock_qty: 70; Supplier: Meridian Wholesale; weight_kg: 1.73")
SERVER = ("- hostname: web-14.prod; IP Address: 10.16.52.213; OS: RHEL 8.9; RAM GB: 32; "
          "rack: R07-U08; owner_team: data-eng")


@pytest.mark.parametrize(("question", "row", "column"), [
    ("how heavy is SKU-00170", PRODUCT, "weight_kg"),
    ("which operating system does web-14.prod run", SERVER, "OS"),
    ("Which carrier shipped SKU-00170?", PRODUCT, None),  # no column is near enough
    ("What is the serial number of web-14.prod?", SERVER, None),
    ("When was SKU-00170 restocked?", PRODUCT, None),
    ("What is the insurance expiry date of SKU-00170?", PRODUCT, None),  # not any date
    ("What is the supplier rating of SKU-00170?", PRODUCT, None),  # its words decide
])
def test_which_column_a_question_asks_for_is_read_by_meaning(
        minilm: Embedder, question: str, row: str, column: str | None) -> None:
    parsed = Row.parse(row)
    assert parsed is not None
    asked = Question.parse(question)
    assert rows.column_by_meaning(asked, parsed.columns[1:], minilm) == column
    found = rows.verdict(asked, parsed, embedder=minilm)
    assert (found is RowVerdict.ANSWERS) is (column is not None)
    assert rows.verdict(asked, parsed) is not RowVerdict.ANSWERS  # words alone cannot tell


CONTRACT = "- Contract No: CT-2022-0215; Vendor: Acme; Start: 2022-03-01; End: 2024-02-28"
TICKET = "- ticket_id: TKT-55441; Customer: Bo; Opened At: 2024-03-21 17:05; Status: open"


@pytest.mark.parametrize(("question", "row"), [
    ("What is the Start date of CT-2022-0215?", CONTRACT),
    ("What is the Opened At timestamp of TKT-55441?", TICKET),
])
def test_a_column_named_as_its_header_writes_it_is_asked_for_not_a_key(
        question: str, row: str) -> None:
    """A capitalised column name reads as a name; it is the column asked for, not the
    record asked about (it keyed nothing, and cut what the question asks for short)."""
    assert _verdict(question, row) is RowVerdict.ANSWERS


@pytest.mark.parametrize("question", [
    "What is the Vendor rating for CT-2022-0215?",  # a column named, and a word it lacks
    "What is the Start fee of CT-2022-0215?",
    "What is the Odometer (km) reading for FL-4814?",  # the price: "reading" is not held
])
def test_a_column_named_with_a_word_the_row_lacks_does_not_answer(question: str) -> None:
    row = "- vehicle_id: FL-4814; Make: MAN; Odometer (km): 123000; Driver: Bo"
    assert _verdict(question, CONTRACT if "CT-" in question else row) is (
        RowVerdict.DOES_NOT_ANSWER)


def test_a_column_named_in_part_is_not_the_column_asked_for() -> None:
    assert _verdict("What is the vendor contact email for CT-2022-0215?", CONTRACT) is (
        RowVerdict.DOES_NOT_ANSWER)
    assert _verdict("What is the Vendor Contact Email for CT-2022-0215?", CONTRACT) is not (
        RowVerdict.ANSWERS)


def test_a_documentation_table_row_is_not_judged_by_the_words_around_the_asked_thing() -> None:
    """A docs table of commands: "what does X do if …" names no property; its other words
    ("dependency group") describe, they are not a column the row lacks."""
    row = ("- Command: pdm install --prod -G dev1; What it does: Fail, --prod can't be given "
           "with dev dependencies; Comments: Leave the --prod option")
    assert _verdict("What does `pdm install --prod -G dev1` do if dev1 is a dependency group?",
                    row) is None


def test_rows_of_other_records_do_not_answer_once_the_asked_record_is_read() -> None:
    question = Question.parse("Which city was ORD-00411 shipped to?")
    read = rows.read(question, [OTHER.removeprefix("- "), ORDER.removeprefix("- ")],
                     [0.95, 0.2])
    assert read == [(rows.P_DOES_NOT_ANSWER, RowVerdict.ANOTHER_RECORD),
                    (rows.P_ANSWERS, RowVerdict.ANSWERS)]
    alone = rows.read(question, [OTHER], [0.95])  # the asked row not read: the reader decides
    assert alone == [(0.95, None)]


PETER = ("- Emp #: 10235; Full name: Peter Brandt; Dept: Finance; Mobile: 01709876543; "
         "Manager: Maria Lopez")
ANNA = ("- Emp #: 10234; Full name: Anna Kowalski; Dept: Finance; Mobile: 01701234567; "
        "Manager: Peter Brandt")


def test_the_record_is_the_row_that_holds_its_key_in_an_earlier_column() -> None:
    """"What is Peter Brandt's mobile?" was answered from Anna's row, where Peter is her
    manager: both rows hold the name, and the reader read Anna's higher."""
    question = Question.parse("What is Peter Brandt's mobile?")
    read = rows.read(question, [ANNA, PETER], [0.95, 0.4])
    assert read == [(rows.P_DOES_NOT_ANSWER, RowVerdict.ANOTHER_RECORD),
                    (rows.P_ANSWERS, RowVerdict.ANSWERS)]


def test_of_rows_that_share_a_key_the_record_holds_more_of_the_question_s_words() -> None:
    """CC-200 has a Travel row and a Training row: "the Q2 budget for training" is the
    Training row's Q2 (a column named by its header, "Q2", not a key)."""
    training = "- Cost centre: CC-200; Item: Training; Q1: 2500; Q2: 0; Q3: 3000"
    travel = "- Cost centre: CC-200; Item: Travel; Q1: 3500; Q2: 4200; Q3: 1500"
    read = rows.read(Question.parse("What is the Q2 budget for training in cost centre "
                                    "CC-200?"), [travel, training], [0.9, 0.9],
                     contexts=["Budget 2026 rows 2–7"] * 2)  # "budget": the sheet's word
    assert read[1] == (rows.P_ANSWERS, RowVerdict.ANSWERS)
    assert read[0][1] is not RowVerdict.ANSWERS
    both = rows.read(Question.parse("What is the Q2 budget of CC-200?"), [travel, training],
                     [0.9, 0.9], contexts=["Budget 2026 rows 2–7"] * 2)
    assert RowVerdict.ANSWERS not in [v for _, v in both]  # two records: neither is the one


def test_two_copies_of_one_row_are_one_record() -> None:
    """A folder holds budget.xlsx and budget_final.xlsx: the same row read twice is not two
    records of which neither can be the one asked about."""
    question = Question.parse("What is the mobile of Peter Brandt?")
    read = rows.read(question, [PETER, PETER], [0.9, 0.9])
    assert [v for _, v in read] == [RowVerdict.ANSWERS, RowVerdict.ANSWERS]


def test_the_reading_names_the_row_it_chose_and_why() -> None:
    doc = Document("d", "default", "orders.csv", "orders", "h")
    text = f"{OTHER}\n{ORDER}"
    evidence = [Evidence(FusedHit("c0", 1.0), Chunk("c0", "d", ChunkKind.CHILD, text, 0), doc,
                         text)]
    reading = read_evidence(EveryRowReader(), Question.parse("Which carrier shipped ORD-00411?"),
                            evidence)
    assert reading is not None
    assert reading.answerability == rows.P_DOES_NOT_ANSWER
    assert reading.by_columns in (RowVerdict.DOES_NOT_ANSWER, RowVerdict.ANOTHER_RECORD)
    reading = read_evidence(EveryRowReader(), Question.parse("Which city was ORD-00411 shipped "
                                                             "to?"), evidence)
    assert reading is not None and "Tartu" in reading.window
    assert reading.by_columns is RowVerdict.ANSWERS


def test_a_csv_question_about_a_column_it_lacks_is_refused(tmp_path: Path) -> None:
    """End to end with the shipped reader: the row is retrieved and read; the answer to the
    asked column quotes it, and states the row lookup's P(right); the question about a
    column the table lacks is refused."""
    (tmp_path / "orders.csv").write_text(
        "order_id,customer,city,status,total_eur\n"
        + "".join(f"ORD-{i:05d},Customer {i % 7},{('Tartu', 'Cork', 'Lyon')[i % 3]},"
                  f"{('shipped', 'pending')[i % 2]},{i * 3}.50\n" for i in range(1, 60)))
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), HashingEmbedder()) as pipe:
        pipe.ingest([tmp_path / "orders.csv"])
        asked = pipe.ask("Which carrier shipped ORD-00013?")
        assert not asked.answered and asked.refusal is not None
        assert asked.refusal.reason == "unanswerable"
        reading = next(c for c in asked.checks if c.name == "answerability")
        assert "table row read by its columns" in reading.detail
        answered = pipe.ask("Which city was ORD-00013 shipped to?")
        assert answered.answered, answered.refusal
        assert "ORD-00013" in answered.text and "Cork" in answered.text
        # the answer confidence never saw a table: the row lookup's measured rate is stated
        assert answered.confidence >= rows.ANSWERED_RIGHT
        decided = next(c for c in answered.checks if c.name == "calibrated_confidence")
        assert "a table row that answers by its columns" in decided.detail


def test_a_question_that_names_its_column_by_another_word_is_answered_from_the_row(
        tmp_path: Path, minilm: Embedder) -> None:
    """End to end with the shipped reader and embedder: "who drives FL-1013?" asks for the
    ``Driver`` column; the row answers by its columns."""
    (tmp_path / "fleet.csv").write_text(
        "vehicle_id,Make,fuel_type,Tank Capacity (L),Driver,Last Service Date\n"
        + "".join(f"FL-{1000 + i},{('Volvo', 'Iveco', 'MAN')[i % 3]},"
                  f"{('diesel', 'petrol')[i % 2]},{40 + i % 30},Driver {i % 9},"
                  f"2026-0{1 + i % 9}-1{i % 10}\n" for i in range(80)))
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), minilm) as pipe:
        pipe.ingest([tmp_path / "fleet.csv"])
        asked = pipe.ask("who drives FL-1013?")
        assert asked.answered, asked.refusal
        assert "FL-1013" in asked.text and "Driver: Driver 4" in asked.text
        reading = next(c for c in asked.checks if c.name == "answerability")
        assert "answers" in reading.detail
        absent = pipe.ask("What is the insurance expiry date of FL-1013?")
        assert not absent.answered


ACCOUNT = ("- account_id: ACME-0042; company_name: Pied Piper Logistics Inc; plan: Enterprise; "
           "region: EMEA; seats: 120")
PRICE_SMALL = "- sku: SKU-013; product: Enterprise plan (small); price: 779,36; currency: EUR"
PRICE_LARGE = "- sku: SKU-014; product: Enterprise plan (large); price: 1742,40; currency: EUR"
INCIDENT = ("- incident_id: INC-2024-0055; service: payments; minutes: 30; "
            "affected_account: ACME-0042")


@pytest.mark.parametrize(("question", "windows"), [
    ("how many accounts are on the Enterprise plan?", [PRICE_SMALL, PRICE_LARGE]),
    ("how many accounts are on the Enterprise plan?", [ACCOUNT]),  # counts the table's rows
    ("list all accounts of ACME-0042's region", [ACCOUNT]),
    ("Which has more seats, ACME-0042 or ACME-0099?", [ACCOUNT]),  # one row of two
    ("how many seats does ACME-0042 have?", [INCIDENT]),  # the record, not what is counted
])
def test_a_question_about_many_rows_or_another_table_is_not_answered_by_one_row(
        question: str, windows: list[str]) -> None:
    read = rows.read(Question.parse(question), windows, [0.95] * len(windows))
    assert {verdict for _, verdict in read} == {RowVerdict.DOES_NOT_ANSWER}


def test_a_row_answers_only_as_the_one_record_its_key_names() -> None:
    question = Question.parse("What is the price of the Enterprise plan?")
    assert [v for _, v in rows.read(question, [PRICE_SMALL, PRICE_LARGE], [0.5, 0.5])] == [
        None, None]  # two rows hold the key: the reader decides
    assert rows.read(question, [PRICE_SMALL], [0.5]) == [(rows.P_ANSWERS, RowVerdict.ANSWERS)]
    seats = Question.parse("how many seats does ACME-0042 have?")
    assert [v for _, v in rows.read(seats, [INCIDENT, ACCOUNT], [0.95, 0.5])] == [
        RowVerdict.DOES_NOT_ANSWER, RowVerdict.ANSWERS]


def test_a_row_that_does_not_hold_the_whole_name_asked_is_another_record() -> None:
    other = ACCOUNT.replace("ACME-0042", "ACME-0281").replace("Logistics", "Media")
    question = Question.parse("which region is Pied Piper Logistics Inc in?")
    assert [v for _, v in rows.read(question, [other, ACCOUNT], [0.95, 0.5])] == [
        RowVerdict.ANOTHER_RECORD, RowVerdict.ANSWERS]


def test_the_answer_quotes_the_row_that_answers_by_its_columns_first() -> None:
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    doc = Document("d", "default", "accounts.csv", "accounts", "h")
    evidence = [Evidence(FusedHit(f"c{i}", 1.0), Chunk(f"c{i}", "d", ChunkKind.CHILD, t, i), doc,
                         t, read=(ReadWindow(t.removeprefix("- "), (t,), p, 0, by_columns=v),))
                for i, (t, p, v) in enumerate([(INCIDENT, 0.05, RowVerdict.DOES_NOT_ANSWER),
                                               (ACCOUNT, 0.9, RowVerdict.ANSWERS)])]
    generation = ExtractiveGenerator().generate(
        Question.parse("how many seats does ACME-0042 have?"), evidence)
    assert [s.text for s in generation.sentences] == [ACCOUNT]
    assert [s.cites for s in generation.sentences] == [(2,)]


def test_prose_with_a_bracketed_list_of_names_is_not_a_row() -> None:
    prose = ("The Normans (Norman: Nourmands; French: Normands; Latin: Normanni) were the "
             "people who gave their name to Normandy.")
    assert Row.parse(prose) is None
    assert Row.parse("- invoice_id: INV-1; Amount (EUR): 12") is not None


def test_short_rows_joined_into_one_window_are_not_read_as_one_row() -> None:
    text = "- order_id: ORD-1; carrier: DHL\n- order_id: ORD-2; carrier: UPS"
    doc = Document("d", "default", "orders.csv", "orders", "h")
    evidence = [Evidence(FusedHit("c0", 1.0), Chunk("c0", "d", ChunkKind.CHILD, text, 0), doc,
                         text)]
    reading = read_evidence(EveryRowReader(), Question.parse("Which carrier shipped ORD-2?"),
                            evidence)
    assert reading is not None and reading.by_columns is None  # the reader decides


def test_a_capitalised_word_of_many_rows_that_names_a_column_is_a_lookup() -> None:
    row = "- sku: SKU-1; product: Kettle; Total: 12"
    assert _verdict("What is the Total for SKU-1?", row) is RowVerdict.ANSWERS


def test_an_endpoint_path_keys_its_row_though_the_grammar_reads_only_its_version() -> None:
    orders = "- Endpoint: /v2/orders; Method: POST; Limit: 120 req/min"
    reports = "- Endpoint: /v2/reports; Method: GET; Limit: 10 req/min"
    asked = Question.parse("What method does /v2/reports use?")
    assert [v for _, v in rows.read(asked, [orders, reports], [0.95, 0.5])] == [
        RowVerdict.ANOTHER_RECORD, RowVerdict.ANSWERS]
    missing = Question.parse("What method does /v2/exports use?")  # in no row
    assert RowVerdict.ANSWERS not in {v for _, v in rows.read(missing, [orders], [0.95])}


@pytest.mark.parametrize("question", ["How many SLA tiers are there?",
                                      "What are all the storage options?"])
def test_a_question_about_many_rows_needs_no_key(question: str) -> None:
    tier = "- Tier: Gold; Uptime: 99.9%; First response: 1 h"
    assert rows.read(Question.parse(question), [tier], [0.95]) == [
        (rows.P_DOES_NOT_ANSWER, RowVerdict.DOES_NOT_ANSWER)]


def test_a_flag_keys_its_row_whole_and_a_heading_joined_to_a_row_is_not_quoted() -> None:
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    server = ("Global flags Flag: --server; Environment variable: QS_SERVER; Default: "
              "http://127.0.0.1:7420; Description: URL of the server to talk to.")
    ca_file = ("Flag: --ca-file; Environment variable: QS_CA_FILE; Default: system trust "
               "store; Description: CA bundle used to verify the server certificate.")
    asked = Question.parse("What is the default value of the qsctl --server flag?")
    assert [v for _, v in rows.read(asked, [server, ca_file], [0.9, 0.99])] == [
        RowVerdict.ANSWERS, RowVerdict.ANOTHER_RECORD]  # "server" of "server certificate"
    line = server.removeprefix("Global flags ")
    doc = Document("d", "default", "cli.md", "CLI", "h")
    text = f"Global flags\n- {line}"
    evidence = [Evidence(FusedHit("c0", 1.0), Chunk("c0", "d", ChunkKind.CHILD, text, 0), doc,
                         text, read=(ReadWindow(server, ("Global flags", f"- {line}"), 0.9, 0,
                                                by_columns=RowVerdict.ANSWERS),))]
    generation = ExtractiveGenerator().generate(asked, evidence)
    assert [s.text for s in generation.sentences] == [f"- {line}"]


def test_a_question_naming_two_records_of_a_table_is_answered_by_neither_row_alone() -> None:
    """A newcomer's "What are the default values of max_workers and minify?" was answered
    ``confident`` from the max_workers row alone (and so was the chat follow-up "what about
    minify?", joined to the question before it)."""
    workers = ("option: max_workers; default: 3; description: Number of pages rendered in "
               "parallel.")
    minify = "option: minify; default: false; description: Whether the HTML output is minified."
    both = rows.read(Question.parse("What are the default values of max_workers and minify?"),
                     [workers, minify], [0.95, 0.9])
    assert both[0][1] is RowVerdict.DOES_NOT_ANSWER and both[0][0] < 0.3
    one = rows.read(Question.parse("What is the default value of max_workers?"),
                    [workers, minify], [0.95, 0.9])
    assert one[0][1] is RowVerdict.ANSWERS
    # a second record named as an identifier, in a second question too
    for question in ("What are the defaults of max_workers and cache_dir?",
                     "What is the default value of max_workers? What is the default value "
                     "of minify?"):
        other = "option: cache_dir; default: .cache; description: Where rendered pages go."
        read = rows.read(Question.parse(question), [workers, other, minify], [0.95, 0.9, 0.9])
        assert read[0][1] is RowVerdict.DOES_NOT_ANSWER, question
    # a key of another table's row is no second record of this one
    page = "page: configuration; minify: documented; owner: docs team"
    other_table = rows.read(Question.parse("What is the default value of max_workers for "
                                           "the configuration page?"),
                            [workers, page], [0.95, 0.2])
    assert other_table[0][1] is RowVerdict.ANSWERS


@pytest.mark.parametrize(("question", "asked", "other"), [
    ("What is the default value of cache_dir?", "cache_dir", "cache"),  # within its own key
    ("What is the default value of max_workers?", "max_workers", "workers"),
    ("What is the default value of server_port?", "server_port", "server"),
    ("What is the default of --color-scheme?", "--color-scheme", "--color"),
    ("What is the default value of max_workers?", "max_workers", "default"),  # a column word
    ("What is the default value of max_workers?", "max_workers", "value"),  # common English
    ("What is the default of max_workers on the server?", "max_workers", "server"),
])
def test_a_word_of_the_question_that_keys_another_row_is_not_always_a_second_record(
        question: str, asked: str, other: str) -> None:
    """A review of the rule above found these refused (0.95 -> 0.05): another row's key
    inside the asked one's, or a common word the question says for another reason."""
    rows_read = [f"option: {asked}; default: 3; description: A setting.",
                 f"option: {other}; default: x; description: Another setting."]
    assert rows.read(Question.parse(question), rows_read, [0.95, 0.9])[0][1] \
        is RowVerdict.ANSWERS


@pytest.mark.parametrize(("value", "answers"), [
    ("see wiki", False), ("TBD", False), ("Check the wiki first", True),
    ("$(pyenv root)/pyenv.d", True)])
def test_a_cell_that_says_where_its_value_is_answers_nothing(value: str, answers: bool) -> None:
    """pyenv's table of environment variables gives PYENV_HOOK_PATH's default as "see wiki":
    "What is the default value of PYENV_HOOK_PATH?" was answered with it, confidently."""
    row = f"- name: PYENV_HOOK_PATH; default: {value}; description: Paths searched for hooks."
    found = _verdict("What is the default value of PYENV_HOOK_PATH?", row)
    assert (found is RowVerdict.ANSWERS) is answers
    assert (found is RowVerdict.DOES_NOT_ANSWER) is not answers
