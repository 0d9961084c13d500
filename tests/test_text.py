"""The vocabulary (abstain.text): one definition of each word-level concept, which every
stage that needs it reads the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from abstain.align import AnswerType, carries
from abstain.confidence import answer_features
from abstain.mentions import parse_question
from abstain.query import query_terms
from abstain.question import Question
from abstain.text import (
    content_words,
    find_identifiers,
    find_names,
    holds_word,
    joined,
    one_edit,
    stem,
    stems,
)
from abstain.verify.lexical import content_stems, numbers

QUESTIONS = [
    "How do I really use the thing?",
    "How do I insert rows from a CSV file with sqlite-utils?",
    "Why does my -vv flag print so much? What does the option do exactly?",
    "Which version added the --strict option to create-table?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_reader_of_a_question_sees_the_same_content_words(question: str) -> None:
    words = content_words(question)
    assert query_terms(question) == words  # the keyword arms
    assert [t.word for t in parse_question(question).terms] == words  # the gate
    read = Question.parse(question)  # what the stages of one ask read
    assert read.keywords.terms == read.words == tuple(words)
    assert answer_features(read, ()).missing_terms == tuple(words)  # term coverage
    assert content_stems(question) == [stem(w) for w in words if not w.isdigit()]  # verifier


def test_content_words_leave_out_how_a_question_is_asked() -> None:
    assert content_words("How do I really use the thing?") == []
    assert content_words("Run -vv, then -v: the 11 rows!") == ["run", "11", "rows"]
    # "how long" / "how many" ask for a kind of answer: the documents need not say "long"
    assert content_words("How long are snapshots kept?") == ["snapshots", "kept"]
    assert content_words("How many days are snapshots kept?") == ["days", "snapshots", "kept"]
    assert content_words("Do long options take two dashes?")[:2] == ["long", "options"]
    assert "far" in content_words("Which metric shows how far behind each peer is?")


def test_a_small_collection_answers_how_long_and_how_many(tmp_path: Path,
                                                          hashing: object) -> None:
    """In a one-chunk collection every word it holds weighs nothing and an absent one all:
    "long" of "how long" was the one term left, and the question was refused."""
    from abstain.pipeline import Pipeline
    from abstain.stores.sqlite import SQLiteStore

    with Pipeline(SQLiteStore(tmp_path / "one.db"), hashing) as pipe:  # type: ignore[arg-type]
        pipe.ingest_text("# Backups\n\nSnapshots are kept for 30 days.", source="b.md")
        for question in ("How long are snapshots kept?", "How many days are snapshots kept?"):
            answer = pipe.ask(question)
            assert answer.answered, (question, answer.refusal)
            assert "30 days" in answer.text


def test_the_same_word_is_stem_equal() -> None:
    assert stems("released releases releasing") == ["releas"] * 3
    assert stem("queuepool") != stem("queue")


def test_an_irregular_form_is_the_same_word_as_its_base() -> None:
    assert stem("forgot") == stem("forgotten") == stem("forget")
    assert stem("sent") == stem("send") and stem("indices") == stem("index")
    assert stem("children") == stem("child") and stem("written") == stem("writes")
    # a form that is a word in its own right, or of two bases, is left alone
    assert stem("found") != stem("find") and stem("left") != stem("leave")
    assert stem("leaves") != stem("leaf") and stem("bases") == stem("base")


def test_a_british_spelling_is_the_same_word_as_the_american_one() -> None:
    assert stem("colour") == stem("color") and stem("licence") == stem("license")
    assert stem("initialised") == stem("initialized") == stem("initialize")
    assert stem("behaviour") == stem("behaviors") and stem("catalogue") == stem("catalog")


def test_a_word_written_whole_or_apart_is_the_same_word() -> None:
    wifi, setup, login = stem("wifi"), stem("setup"), stem("logins")
    assert {wifi, setup, login} <= joined(stems("Join the Wi-Fi; set up a VPN; logging in"))
    text = stems("Join the office network.")
    held = set(text)

    def apart() -> set[str]:
        return joined(text)

    assert not holds_word(wifi, (), held, apart)
    assert holds_word(stem("network"), (), held, apart)
    # the question writes it apart ("log in"), the text whole ("login")
    question = Question.parse("How do I log in to the wi-fi?")
    joins = {t.word: t.joins for t in question.terms}
    assert login in joins["log"] and wifi in joins["wi"]
    assert holds_word(stem("log"), joins["log"], {login}, set)
    assert not holds_word(stem("log"), (), {login}, set)


def test_a_desk_question_in_its_own_spelling_is_answered(tmp_path: Path,
                                                         hashing: object) -> None:
    """Users write "wifi", "logins", "setup", "forgot" of pages that write "Wi-Fi",
    "log-ins", "set up", "forgotten": each was refused for a word "no passage mentions"."""
    from abstain.pipeline import Pipeline
    from abstain.stores.sqlite import SQLiteStore

    pages = {
        "wifi.md": "# Office Wi-Fi\n\nThe office Wi-Fi network is called CORP-SECURE.",
        "locks.md": "# Locked accounts\n\nAfter five failed log-ins the account is locked for "
                    "30 minutes.",
        "laptop.md": "# New laptops\n\nTo set up a new laptop, enrol it in Jamf first.",
        "reset.md": "# A forgotten password\n\nA forgotten password is reset at "
                    "https://reset.example.com with your username.",
    }
    asked = {"What is the office wifi network called?": "CORP-SECURE",
             "How long is an account locked after failed logins?": "30 minutes",
             "What do I do first to setup a new laptop?": "Jamf",
             "I forgot my password, where do I reset it?": "reset.example.com"}
    with Pipeline(SQLiteStore(tmp_path / "desk.db"), hashing) as pipe:  # type: ignore[arg-type]
        for source, text in pages.items():
            pipe.ingest_text(text, source=source)
        for question, key in asked.items():
            answer = pipe.ask(question)
            assert answer.answered, (question, answer.refusal)
            assert key in answer.text, (question, answer.text)
        refused = pipe.ask("What is the office bluetooth network called?")
        assert not refused.answered


@pytest.mark.parametrize(("word", "value"), [("zero", "0"), ("fifteen", "15"),
                                             ("seventy", "70"), ("twelve", "12")])
def test_the_verifier_and_the_answer_type_read_the_same_number_words(word: str,
                                                                     value: str) -> None:
    sentence = f"The pool keeps {word} connections open."
    assert numbers(sentence) == {value}
    assert carries(sentence, AnswerType.NUMBER, measure=frozenset({stem("connections")}))


def test_one_is_not_read_as_a_number_but_a_quantity_states_an_amount() -> None:
    assert numbers("Pick one of the options.") == set()
    assert carries("Retries happen twice.", AnswerType.NUMBER)


IDENTIFIED = "Set APP_CACHE_TTL and storage.wal_segment_mb, see ADR-0050, e1207 and v2.3.1."


def test_documents_and_questions_read_identifiers_with_one_grammar() -> None:
    found = ["APP_CACHE_TTL", "storage.wal_segment_mb", "ADR-0050", "e1207", "v2.3.1"]
    assert find_identifiers(IDENTIFIED) == found  # ingest, keyword query, verifier
    asked = Question.parse(IDENTIFIED.removesuffix(".") + "?")
    assert [m.text for m in asked.identifiers] == found  # the gate
    assert find_identifiers("Call db.table(name) e.g. twice.") == ["db.table"]


@pytest.mark.parametrize("code", ["INV-2024-00727", "CVE-2023-48795", "LAB-S-3391",
                                  "inv-2024-00595", "ISO-8859-1", "6204-2RS", "3M-9001", "B-1.07"])
def test_a_code_of_several_dashed_parts_is_one_identifier(code: str) -> None:
    """A ticket, invoice, CVE or part number is one identifier, in a document and in a
    question (it was a capitalised name, or for "6204-2RS" nothing, and its rows were not
    searched as an identifier's: "Is the Bearing 6204-2RS in stock?" quoted the 6205's row
    too)."""
    assert find_identifiers(f"See {code} for the details.") == [code]
    assert [m.text for m in Question.parse(f"What is the status of {code}?").identifiers] == [
        code]
    assert find_identifiers("a state-of-the-art x-forwarded-for header") == []
    assert find_identifiers("24-7 support, 1-2 days, a 3D-printed part, 2023-08-03T23:24") == []


def test_a_name_is_a_capitalised_word_that_is_no_stopword_or_light_word() -> None:
    question = "Roughly how many rows can Please hold in GitHub Actions, OK?"
    assert [m.text for m in Question.parse(question).names] == ["GitHub Actions"]
    assert find_names(question) == ["GitHub Actions"]


@pytest.mark.parametrize(("text", "names"), [
    ("What is the weight of the Falcon Saucepan III?", ["Falcon Saucepan III"]),
    ("In what year did Louis XIV's reign begin?", ["Louis XIV"]),
    ("Who was Henry VIII.", ["Henry VIII"]),
    ("Sold as Rocky II, then Rocky III.", ["Rocky II", "Rocky III"]),
    ("Is Windows XP supported?", ["Windows", "XP"]),  # XP is no numeral
    ("Did Henry VIII.1 ship?", ["Henry", "VIII"]),  # nor a dotted token
    ("What is Peter Brandt's mobile?", ["Peter Brandt"]),  # a possessive ends a name too
    ("Is GitHub Actions' cache shared?", ["GitHub Actions"]),
    ("Who is on call on 14 January 2026, or on Monday?", []),  # a date, which no name is
    ("Is the office open on Saturdays?", []),  # nor are weekdays (a newcomer's unknown_entity)
    ("Is April Ludgate the manager?", ["April Ludgate"]),
    # a title is no part of the name: the document says "a Charter of Elizabeth II"
    ("What did Queen Elizabeth II's charter create?", ["Elizabeth II"]),
    ("When did King Henry VIII marry?", ["Henry VIII"]),
    # … but only before a name and its numeral: the rest alone is a word, or someone else
    ("When was Dr Pepper invented?", ["Dr Pepper"]),
    ("When did Queen Mary visit Paris?", ["Queen Mary", "Paris"]),
    ("Is St Louis near the General Settings page?", ["St Louis", "General Settings"]),
])
def test_a_name_takes_its_numeral_and_possessive_and_no_calendar_word(
        text: str, names: list[str]) -> None:
    """"Falcon Saucepan III" is one product, not "Falcon Saucepan" and "III": a row of
    another Falcon Saucepan held every part of it, and was quoted as its answer. "Peter
    Brandt's" is one person: "Peter" and "Brandt" were found in a row that held both."""
    assert find_names(text) == names


def test_contractions_typed_without_their_apostrophe_are_no_terms() -> None:
    asked = Question.parse("whos the owner of INC-1, my invoices wont download")
    assert {"whos", "wont"}.isdisjoint(t.word for t in asked.terms)
    assert {"owner", "invoices", "download"} <= {t.word for t in asked.terms}


def test_an_identifier_of_no_known_family_is_offered_only_what_is_spelt_alike() -> None:
    """Found by a newcomer: "ERR-4471" was offered "0.0.0.0", "P1", "P2"."""
    from abstain.text.grammar import nearest

    known = ["0.0.0.0", "P1", "P2", "ADR-0007", "ADR-0012", "E1207"]
    assert nearest("ERR-4471", known) == []
    assert nearest("ADR-0010", known) == ["ADR-0012", "ADR-0007"]  # its family, by number
    assert nearest("E1208", ["E1207", "P1"]) == ["E1207"]


@pytest.mark.parametrize(("a", "b", "one"), [
    ("disconecting", "disconnecting", True), ("recieve", "receive", True),
    ("pasword", "password", True), ("definately", "definitely", True),
    ("accidently", "accidentally", False), ("password", "password", False),
    ("abcd", "badc", False), ("ab", "ba", True)])
def test_one_edit_is_a_letter_missing_added_changed_or_two_swapped(a: str, b: str,
                                                                     one: bool) -> None:
    assert one_edit(a, b) is one and one_edit(b, a) is one


def test_a_misspelt_word_is_read_as_the_evidences_word(tmp_path: Path, hashing: object) -> None:
    """A help desk's users type "pasword" and "disconecting": the question was refused for a
    word no passage mentions, though the page was retrieved."""
    from abstain.pipeline import Pipeline
    from abstain.stores.sqlite import SQLiteStore
    from abstain.stream import stream_answer

    with Pipeline(SQLiteStore(tmp_path / "desk.db"), hashing) as pipe:  # type: ignore[arg-type]
        pipe.ingest_text("# Passwords\n\nReset your password at https://reset.example.com "
                         "with your username.", source="reset.md")
        pipe.ingest_text("# Terminals\n\nClick detects termui support on Windows consoles "
                         "automatically.", source="term.md")
        answer = pipe.ask("how do i reset my pasword?")
        assert answer.answered and "reset.example.com" in answer.text
        assert any("'pasword' as 'password'" in note for note in answer.notes)
        assert answer.question == "how do i reset my pasword?"  # as asked
        assert answer.to_json()["read_as"] == "how do i reset my password?"
        meta = next(stream_answer(pipe, "how do i reset my pasword?"))  # the web page's source
        assert meta.kind == "meta" and meta.data["read_as"] == "how do i reset my password?"
        # a technical word is no misspelling of another ("termux" is not "termui")
        other = pipe.ask("does it detect termux support?")
        assert not any("misspelling" in note for note in other.notes)
        assert other.read_as is None and other.to_json()["read_as"] is None
