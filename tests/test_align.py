"""Evidence alignment: the answer comes from evidence that holds what was asked.

The three sample-corpus questions that used to be answered from the wrong document, the
echo-only document, what a question names, and each alignment check failing on its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from abstain.align import AnswerType, AskedType, carries, english_rarity, holds
from abstain.asked import compared, expected_type, measured
from abstain.embed.base import Embedder
from abstain.mentions import Kind, Mention, parse_question
from abstain.pipeline import Pipeline
from abstain.question import Question
from abstain.stores.sqlite import SQLiteStore
from abstain.text import find_identifiers, stem
from abstain.verify import LexicalVerifier

# -- the sample corpus: answered from the right document ---------------------


def test_adr_0007_is_answered_from_its_own_decision(sample_pipeline: Pipeline) -> None:
    answer = sample_pipeline.ask("What does ADR-0007 decide?")
    assert answer.answered, answer.refusal
    assert "CRC32C" in answer.text
    cited = {answer.evidence[c.n - 1].source for c in answer.citations}
    assert any("ADR-0007" in s for s in cited)
    assert not any(f"ADR-000{n}" in s for s in cited for n in (1, 4, 9))
    assert answer.llm_called is False


@pytest.mark.parametrize("question", ["What does E1207 mean?", "what does e1207 mean?"])
def test_e1207_is_answered_with_its_own_meaning(sample_pipeline: Pipeline,
                                                question: str) -> None:
    answer = sample_pipeline.ask(question)
    assert answer.answered, answer.refusal
    assert "E1207 means" in answer.text
    assert "E1210" not in answer.text and "E1201" not in answer.text


def test_release_date_comes_from_the_changelog(sample_pipeline: Pipeline) -> None:
    answer = sample_pipeline.ask("When was 1.3.2 released?")
    assert answer.answered, answer.refusal
    assert "2022-04-04" in answer.text
    assert "2024" not in answer.text
    assert any(c.source.endswith("CHANGELOG.txt") for c in answer.citations)
    check = next(c for c in answer.checks if c.name == "answer_type")
    assert check.passed and check.threshold == "date"


def test_keyword_evidence_keeps_a_chunk_with_weak_cosine(sample_pipeline: Pipeline) -> None:
    answer = sample_pipeline.ask("What does ADR-0007 decide?")
    adr = [e for e in answer.evidence if "ADR-0007" in e.document.title]
    assert adr and all(e.confidence is not None and e.confidence >= 25 for e in adr)
    assert any(e.hit.vector_distance is None or e.hit.vector_distance > 0.65 for e in adr)
    assert answer.evidence[0] in adr


def test_echo_only_document_does_not_answer_its_question(tmp_path: Path,
                                                         minilm: Embedder) -> None:
    with Pipeline(SQLiteStore(tmp_path / "echo.db"), minilm) as pipe:
        pipe.ingest_text("# Football questions\n\nWho won the 2018 football world cup? "
                         "This question is answered here: yes.\n\nThe world cup is a "
                         "football tournament held every four years.", source="echo.md")
        answer = pipe.ask("Who won the 2018 football world cup?")
    assert not answer.answered
    assert answer.refusal is not None and answer.refusal.reason == "answer_type_missing"
    assert answer.llm_called is False


def test_unknown_made_up_compound_is_refused(sample_pipeline: Pipeline) -> None:
    answer = sample_pipeline.ask("How do I size the ReplicaPool for a three node cluster?")
    assert not answer.answered
    assert answer.refusal is not None and answer.refusal.reason == "unknown_entity"
    assert "ReplicaPool" in answer.refusal.message


def test_a_version_inside_longer_versions_does_not_exist(sample_pipeline: Pipeline) -> None:
    """The corpus has 1.3.0 and 2.3.0 but no 3.0: counted words cross the dots, existence
    does not."""
    answer = sample_pipeline.ask("What changed in Quillstack 3.0?")
    assert answer.refusal is not None and answer.refusal.reason == "unknown_entity"
    assert "3.0 was not found" in answer.refusal.message
    known = sample_pipeline.ask("What changed in Quillstack 2.3.0?")
    assert known.refusal is None or known.refusal.reason != "unknown_entity"


def test_another_release_with_more_zeros_does_not_vouch_for_a_version() -> None:
    """Reading "4.0" as there wherever "4.0.0" stands answered 19 more train questions, but
    let any "openapi: 3.0.0", dependency pin or "10.0.0.0/16" vouch for a made-up
    "Quillstack 3.0" (a review's finding): a version occurs only as itself."""
    from abstain.text.grammar import occurs_in

    for asked, text in (("3.0", "openapi: 3.0.0"), ("3.0", "requires Pydantic >= 3.0.0"),
                        ("10.0", 'cidr_block = "10.0.0.0/16"'), ("1.3", "1.3.2 is out")):
        assert not occurs_in(asked, text), (asked, text)
    assert occurs_in("v2.3", "See 2.3.") and occurs_in("2.3", "v2.3")


def test_number_question_without_a_number_is_refused(sample_pipeline: Pipeline) -> None:
    answer = sample_pipeline.ask("How many engineers maintain the qsctl admin reset-password "
                                 "command?")
    assert not answer.answered
    assert answer.refusal is not None
    assert answer.refusal.reason == "answer_type_missing"


def test_checks_are_in_debug_json_and_audit_trail(sample_pipeline: Pipeline) -> None:
    answer = sample_pipeline.ask("When was 1.3.2 released?")
    names = [c["name"] for c in answer.to_json()["checks"]]
    for name in ("entity_existence", "informative_coverage", "passage_coverage",
                 "answer_type"):
        assert name in names
    trail = answer.audit_trail()
    assert "answer_type" in str(trail) and "informative_coverage" in str(trail)


# -- what a question names ----------------------------------------------------


def _named(question: str) -> dict[str, tuple[Kind, str]]:
    return {m.text: (m.kind, m.why) for m in parse_question(question).mentions}


@pytest.mark.parametrize(("question", "text", "kind"), [
    ("What does the APP_CACHE_TTL variable do?", "APP_CACHE_TTL", Kind.IDENTIFIER),
    ("Does it support grpc2?", "grpc2", Kind.IDENTIFIER),
    ("What does e1207 mean?", "e1207", Kind.IDENTIFIER),
    ("Is v3 still supported?", "v3", Kind.IDENTIFIER),
    ("How do I subclass module.Class?", "module.Class", Kind.IDENTIFIER),
    ("What does Class.method() return?", "Class.method", Kind.IDENTIFIER),
    ("Should I call commit() myself?", "commit", Kind.IDENTIFIER),
    ("What does the --fts6 flag do?", "--fts6", Kind.NAME),
    ("What does `sqlite-utils doctor` check?", "sqlite-utils doctor", Kind.IDENTIFIER),
    ("How do I size the QueuePool?", "QueuePool", Kind.NAME),
    ("Which Kubernetes versions work?", "Kubernetes", Kind.NAME),
    ("Can I use GitHub Actions for this?", "GitHub Actions", Kind.NAME),
    ("Where does `config.toml` go?", "config.toml", Kind.SOFT),
    ("How do I load app.js first?", "app.js", Kind.SOFT),
    ("In Express.js how do I parse JSON bodies?", "Express.js", Kind.NAME),  # a product
    ("Where does `Chart.js` read its defaults?", "Chart.js", Kind.NAME),
    ("When was 1.3.2 released?", "1.3.2", Kind.IDENTIFIER),
])
def test_what_users_type_is_extracted(question: str, text: str, kind: Kind) -> None:
    assert _named(question)[text][0] is kind


def test_a_contracted_pronoun_or_verb_is_no_name() -> None:
    named = _named("Uploads are big; I'd like to stream each file to S3 and we've tried "
                   "Kubernetes. Won't it buffer?")
    assert "I'd" not in named and "Won't" not in named
    assert named["Kubernetes"][0] is Kind.NAME
    assert _named("Does O'Neil's parser keep comments?")["O'Neil"][0] is Kind.NAME


def test_names_offered_as_comparison_or_context_are_soft() -> None:
    named = _named("Is there something like pandas' `df.head()` here?")
    assert named["df.head"] == (Kind.SOFT, "comparison")
    named = _named("US zip codes like 01234 lose their leading zero in my CSV. How do I "
                   "force that column to stay text?")
    assert all(kind is Kind.SOFT for kind, _ in named.values())
    assert "01234" not in named


def test_context_sentences_weigh_less_than_the_asked_one() -> None:
    parts = parse_question("My terminal garbles unicode. How do I get ascii escapes instead?")
    context = {t.word: t.context for t in parts.terms}
    assert context["garbles"] and not context["escapes"]
    assert parts.asked == "How do I get ascii escapes instead?"


@pytest.mark.parametrize(("mention", "text", "held"), [
    (Mention("QueuePool", Kind.NAME, "name"), "the queue pool is full", False),
    (Mention("APP_CACHE_TTL", Kind.IDENTIFIER, "env"), "set app-cache-ttl to 5", True),
    (Mention("1.3", Kind.IDENTIFIER, "version"), "released 1.3.2 today", False),
    (Mention("1.3.2", Kind.IDENTIFIER, "version"), "1.3.2 (2022-04-04)", True),
    (Mention("--csv", Kind.NAME, "flag"), "pass --csv-format", False),
    (Mention("--CSV", Kind.NAME, "flag"), "pass --csv to read it", True),
    (Mention("-l", Kind.NAME, "flag"), "-L, --files-without-match", False),  # grep's -l is not -L
    (Mention("-L", Kind.NAME, "flag"), "-L, --files-without-match", True),
    (Mention("insert_all", Kind.IDENTIFIER, "snake"), "db.table.insert_all(rows)", True),
])
def test_mentions_match_whole(mention: Mention, text: str, held: bool) -> None:
    assert holds(mention, text) is held


def test_a_flag_made_of_a_pages_words_is_not_that_pages_flag(tmp_path: Path,
                                                              minilm: Embedder) -> None:
    page = ("# Running behind a proxy\n\nFixing proxy headers: set trusted_hops to the number "
            "of proxies in front of the server so that the client address comes from "
            "X-Forwarded-For.\n\n## Keep-alive\n\nStart the server with --keep-alive 5 to "
            "close idle connections after five seconds.\n")
    with Pipeline(SQLiteStore(tmp_path / "kb.db"), minilm) as pipe:
        pipe.ingest_text(page, source="proxy.md")
        made_up = pipe.ask("How do I turn on `--proxy-headers` so the server trusts "
                           "X-Forwarded-For?")
        real = pipe.ask("What does --keep-alive do?")
    assert not made_up.answered and made_up.refusal is not None
    assert made_up.refusal.reason == "unknown_entity"
    assert "--proxy-headers" in made_up.refusal.message
    assert real.answered


# -- answer types -------------------------------------------------------------


@pytest.mark.parametrize(("question", "kind"), [
    ("When was 1.3.2 released?", AnswerType.DATE),
    ("What year did the project start?", AnswerType.DATE),
    ("When I pass two files, what are the tables called?", None),
    ("How many rows does the preview show?", AnswerType.NUMBER),
    ("What batch size does insert_all() use?", AnswerType.NUMBER),
    ("Who maintains the project?", AnswerType.NAME),
    ("How do I reset the admin password?", None),
    ("Which version added incremental backups?", AnswerType.VERSION),
    ("which uvicorn release got rid of the --debug flag?", AnswerType.VERSION),
    ("Since which version can it serve WSGI apps?", AnswerType.VERSION),
    ("What's the minimum Redis version required?", AnswerType.VERSION),
    ("What's new in version 4.2?", None),  # the version is given, not asked for
    ("Which version control systems can pip install from?", None),
    ("From which directory is the config read?", None),
    ("How many versions are supported?", AnswerType.NUMBER),
    ("What is the release date of 2.0?", None),  # a date, not a version
    ("What does a release contain?", None),
    ("Which version-control system is used?", None),
    ("Which values does the match_arm_leading_pipes option accept?", AnswerType.CHOICES),
    ("what are the valid values for --log-level?", AnswerType.CHOICES),
    ("Which log levels can I pass?", AnswerType.CHOICES),
    ("What range of values does nice() accept?", None),  # a range, not values to choose
    ("What is the maximum value allowed for db-pool?", AnswerType.NUMBER),
    ("What value does --force-grid-wrap take without a number?", None),
    ("What values does parse() return?", None),
    ("Which values does the --range option accept?", AnswerType.CHOICES),
])
def test_expected_answer_type(question: str, kind: AnswerType | None) -> None:
    assert expected_type(question) is kind


def test_a_version_asked_is_a_version_the_question_does_not_give() -> None:
    """"Which version added --override-binary?" was typed as a number to stand by the word
    "version", so a changelog's "0.65" answered nothing and answerable questions were refused
    ``answer_type_missing``."""
    asked = AskedType.of(Question.parse("Which msgspec release dropped Python 3.8?"))
    assert asked is not None and asked.expected is AnswerType.VERSION
    for sentence in ("Version 0.19.0", "[0.20.1] - 2024-10-03", "Added in v4.24.0.",
                     "0.65 (released 2024-01-02)", "Fixed in release 7."):
        assert asked.carried_by(sentence), sentence
    for sentence in ("Drop support for Python 3.8 (#756).", "Wait 0.5 seconds.",
                     "The timeout is 2000 ms.", "Backups go after 14 days.",
                     "It costs 1.50 USD.", "IP 192.168.1.1 is used.", "Held on 12.03.2024.",
                     "The V8 engine runs it."):
        assert not asked.carried_by(sentence), sentence
    minimum = AskedType.of(Question.parse("What's the minimum Redis version required?"))
    assert minimum is not None and minimum.carried_by("Redis 6 or newer is required.")
    # the question's own version is excluded whole, not digit by digit
    supports = AskedType.of(Question.parse("Which version supports Python 3.12?"))
    assert supports is not None and supports.carried_by("Python 3.12 is supported since v3.")


def test_one_definition_of_a_version_serves_identifiers_answers_and_release_lines() -> None:
    """The identifier grammar, the version answer type and a changelog's release line read
    a version's numbers alike (:data:`abstain.text.grammar.VERSION_NUMBER`): a pre-release
    part is part of it everywhere, a word or a range after a dash is not, and a date is none."""
    from abstain.align.types import is_release_line, versions_in

    for text, version in (("2.0rc1", "2.0rc1"), ("1.0.0-beta.2", "1.0.0-beta.2"),
                          ("2.1.dev0", "2.1.dev0"), ("3.8-compatible", "3.8"),
                          ("4.0.0-M1", "4.0.0-M1"), ("18.0.0-canary.3", "18.0.0-canary.3"),
                          ("21.0.1-ea", "21.0.1-ea"), ("1.0.0-rc.1", "1.0.0-rc.1")):
        assert find_identifiers(f"Needs {text} here.") == [version], text
        assert versions_in(f"Needs {text} here.") == [version], text
        assert is_release_line(text) == (text == version), text
    assert find_identifiers("Python 2.7-3.5") == versions_in("Python 2.7-3.5") == ["2.7", "3.5"]
    assert not is_release_line("12.03.2024") and versions_in("12.03.2024") == []
    assert versions_in("[0.20.1] - 2024-10-03") == ["0.20.1"]  # the release line's once


def test_a_release_number_dates_a_change_for_a_when_question() -> None:
    """"Since when does gevent publish ppc64le wheels?" is answered by "Beginning with gevent
    22.10.0, …": three numbers or a "v" date a change wherever they stand, not only after
    "in" or "since"; a decimal, an address or the question's own release does not."""
    when = AskedType.of(Question.parse("Since when does gevent publish ppc64le wheels?"))
    assert when is not None and when.expected is AnswerType.DATE
    for sentence in ("Beginning with gevent 22.10.0, ppc64le binaries are on PyPI.",
                     "v0.25.0 adds --squeeze-blank.", "Changed in v4.2: the default."):
        assert when.carried_by(sentence), sentence
    for sentence in ("Set it to 1.5.", "Bind to 192.168.1.1 first.", "The V8 engine runs it.",
                     # a review's: a section, a path, a UUID, a phone, thousands, a pin
                     "See section 4.2.1 for details.", "Send requests to /api/v1/users.",
                     "UUID v4 identifiers are used.", "Call 555.123.4567 for help.",
                     "Die Datei hat 1.234.567 Zeilen.", "pip install requests==2.31.0",
                     # a second review's: a dependency's version dates no change
                     "Requires Python 3.8.10 or later.", "Tested with Node v18.17.0.",
                     "The build uses CUDA 12.1.0 images."):
        assert not when.carried_by(sentence), sentence
    own = AskedType.of(Question.parse("When was 2.3.1 released?"))
    assert own is not None and not own.carried_by("See 2.3.1 for the notes.")


def test_a_frequency_answers_how_often() -> None:
    """"How often do replicas ping the master?" is answered by "every second", "How often
    does Meilisearch release?" by "four to six times a year": a frequency, where no number
    stands by a unit of time; a count of tries still lasts nothing."""
    often = AskedType.of(Question.parse("How often do replicas ping the master?"))
    assert often is not None and often.expected is AnswerType.NUMBER
    for sentence in ("Replicas ping the master every second.", "We ship every other week.",
                     "It releases between four and six times a year.", "Backups run nightly.",
                     "The festival is biennial."):
        assert often.carried_by(sentence), sentence
    for sentence in ("Replicas ping the master.", "The master pings replicas often.",
                     # a review's: "every" and "once a" of no time
                     "Every user must enable MFA.", "Once a token expires, log in again.",
                     "Backups are stored in every region.", "There are times a restart helps."):
        assert not often.carried_by(sentence), sentence
    own = AskedType.of(Question.parse("How often are the weekly backups verified?"))
    assert own is not None and not own.carried_by("The weekly backups are stored in S3.")
    assert own.carried_by("The weekly backups are verified every month.")
    how_long = AskedType.of(Question.parse("How long is the ping timeout?"))
    assert how_long is not None and not how_long.carried_by("It is retried 3 times a day.")


def test_a_duration_without_a_number_or_a_length_answers_how_long() -> None:
    """"How long has Carnival been celebrated?" is answered by "for centuries", "How long have
    Puerto Ricans been U.S. citizens?" by "since 1917", "How long is the rail network?" by
    "2,548 km": 37 % of SQuAD train's how-long questions misfired."""
    how_long = AskedType.of(Question.parse("How long has Carnival been celebrated?"))
    assert how_long is not None
    for sentence in ("Carnival has been celebrated for centuries.", "Citizens since 1917.",
                     "Native rule re-emerged for about a century.", "The network is 2,548 km.",
                     "It was used for more than two decades."):
        assert how_long.carried_by(sentence), sentence
    for sentence in ("It was retried 3 times.", "Carnival is celebrated in Rio.",
                     "Since 2000 requests arrived, it slowed."):
        assert not how_long.carried_by(sentence), sentence
    how_old = AskedType.of(Question.parse("How old was William IV when he died?"))
    assert how_old is not None and how_old.carried_by("William IV died at the age of 71.")


def test_only_a_release_line_above_a_chunk_dates_or_versions_it() -> None:
    """A heading two levels up states the release of a changelog's entry; a section's
    "Nightly builds" or "3.2.1 Options" states none."""
    from abstain.align import stating_headings
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit

    def under(*path: str) -> Evidence:
        chunk = Chunk("c", "d", ChunkKind.CHILD, "Added --ignore-contain.", 0, heading_path=path)
        return Evidence(FusedHit("c", 1.0), chunk, Document("d", "default", "C.md", "C", "h"),
                        chunk.text)

    when = AskedType.of(Question.parse("When was --ignore-contain added?"))
    assert when is not None
    assert stating_headings(under("10.4.0 (2024-05-01)", "Features"), when) == [
        "10.4.0 (2024-05-01)"]
    for heading in ("Nightly builds", "Monday standup", "3.2.1 Options", "2.1 - Installation"):
        assert stating_headings(under(heading, "Features"), when) == [], heading


def test_a_number_must_stand_by_what_is_counted() -> None:
    measure = measured("What batch size does insert_all() use?")
    assert carries("The default batch size is 100.", AnswerType.NUMBER, measure=measure)
    assert not carries("Pass --pk more than once for two columns.", AnswerType.NUMBER,
                       measure=measure)
    assert not carries("It took 3 releases.", AnswerType.NUMBER,
                       measure=measured("How long does a vacuum take?"))
    assert carries("It takes about 3 minutes.", AnswerType.NUMBER,
                   measure=measured("How long does a vacuum take?"))


def test_common_english_words_barely_count() -> None:
    assert english_rarity("thymol") == 1.0
    assert english_rarity("put") < 0.2 < english_rarity("license") < 1.0


# -- verification of generated sentences ---------------------------------------


@pytest.mark.parametrize(("claim", "source"), [
    ("Members may visit on Sundays.", "Members may visit the museum on Saturdays."),
    ("France won the 2018 football world cup.",
     "Who won the 2018 football world cup? This question is answered here: yes."),
    ("The limit is 500 documents.", "The limit is 50 documents per batch."),
])
def test_lexical_verifier_rejects_a_changed_fact(claim: str, source: str) -> None:
    verifier = LexicalVerifier()
    assert verifier.check(claim, [source]) < verifier.threshold


def test_lexical_verifier_keeps_a_faithful_sentence() -> None:
    verifier = LexicalVerifier()
    source = "Members may visit the museum on Saturdays between 9 and 17."
    assert verifier.check("Members may visit the museum on Saturdays.", [source]) >= 0.5


@pytest.mark.parametrize(("sentence", "dated"), [
    ("The timeout is 2000 ms.", False),
    ("The limit is 2048.", False),
    ("Requests time out after 2000 ms in 2000 ms windows.", False),
    ("Version 2.0 was released in 2019.", True),
    ("See the design note (2021).", True),
    ("Supported from 2019–2021.", True),
    ("Copyright 2024 Acme.", True),
    ("Old laptops will be replaced in June.", True),
    ("Reviews close by early March.", True),
    ("You may replace it.", False),
    ("Office: Sao Paulo; Opened: 2022; Headcount: 64", True),  # a table row's label
    ("Model: Crafter; Model Year: 2019", True),
    # history is dated too: a year before 1900, an era's year, a century, a decade
    ("Nion wrote of it in a book published in 1846.", True),
    ("The Taika Reform was issued in 646 AD.", True),
    ("Catalan evolved in the 9th century.", True),
    ("19th-century Spain saw a revival.", True),
    ("The war of the 1640s.", True),
    ("It lasted 1861–1865.", True),
    ("The cache holds 1500 rows.", False),
    ("Set the limit to 1500.", False),
    ("We sell 10 ad slots.", False),
    # a review's: counts and sizes of a thousand and more are no years of history
    ("Divide the value by 1024 to get kilobytes.", False),
    ("Data is stored in 1024-byte blocks.", False),
    ("The limit went from 1000 to 5000.", False),
    ("Retry after 1000 attempts.", False),
    ("Chunks are 1000-1500 characters long.", False),
    ("The default MTU (1500) applies.", False),
    ("You can sync up to 5000 AD objects.", False),
    ("The library handles 1000s of requests.", False),
    ("The default timeout is 1800s.", False),
])
def test_a_year_counts_as_a_date_only_in_a_date_context(sentence: str, dated: bool) -> None:
    assert carries(sentence, AnswerType.DATE, versions=False) is dated


def test_a_row_s_column_label_gives_its_value_a_unit_and_a_setting_s_name_does_not() -> None:
    how_long = measured("How long did it take to resolve INC-1?")
    assert carries("incident_id: INC-1; minutes_to_resolve: 308", AnswerType.NUMBER,
                   measure=how_long)
    assert not carries("Backups older than backup.retention_days are pruned after 14 runs.",
                       AnswerType.NUMBER, measure=measured("How long does a backup take?"))
    version = AskedType.of(Question.parse("Which version added backups?"))
    assert version is not None
    assert not version.carried_by("Backups older than backup.retention_days (14 by default) go.")


def test_a_settings_default_and_a_number_written_with_its_unit_carry_an_amount() -> None:
    """Documentation states a setting's default bare ("Default: 120", the unit in the option's
    description) or joined to its unit ("10s", "400ms"): "how long does uvicorn keep idle
    connections?" was refused ``answer_type_missing`` against "Default: 120"."""
    how_long = measured("How long are idle keep-alive connections kept?")
    for sentence in ("Default: 120", "Defaults to 60.", "fallbackDuration: 10s",
                     "The indicator appears after 400ms."):
        assert carries(sentence, AnswerType.NUMBER, measure=how_long), sentence
    for sentence in ("Requests are retried 3 times.", "Writes are 2x faster.",
                     "Connections are kept while 3 workers run.",
                     "Writes are 2x faster with 4 workers."):
        assert not carries(sentence, AnswerType.NUMBER, measure=how_long), sentence
    # a number with a unit attached lasts; it counts nothing by itself
    assert not carries("Renders in 3D.", AnswerType.NUMBER,
                       measure=measured("How many users can log in?"))
    assert carries("Set to 0 to disable (Default 4).", AnswerType.NUMBER,
                   measure=measured("How many streams does a transfer use?"))


def test_times_and_x_are_not_units_of_duration() -> None:
    how_long = measured("How long is the timeout?")
    assert not carries("Requests are retried 3 times.", AnswerType.NUMBER, measure=how_long)
    assert not carries("The timeout is retried 3 times.", AnswerType.NUMBER, measure=how_long)
    assert not carries("Writes are 2 x faster.", AnswerType.NUMBER, measure=how_long)
    assert carries("The timeout is 30 seconds.", AnswerType.NUMBER, measure=how_long)
    assert carries("The timeout is 1500.", AnswerType.NUMBER, measure=how_long)
    # money is an amount of its currency, written either side
    for sentence in ("A lost badge costs a fee of 150 NOK.", "A lost badge costs $150.",
                     "The plan is 12 euros a month."):
        assert carries(sentence, AnswerType.NUMBER,
                       measure=measured("How much does a lost badge replacement cost?")), sentence
    # counting questions still count times
    assert carries("Requests are retried 3 times.", AnswerType.NUMBER,
                   measure=measured("How many times is a request retried?"))
    # "how much does X cost": X is what costs, not a measure (a newcomer's price-list row was
    # refused answer_type_missing, "NW" of NW-1003 read as the thing counted)
    assert measured("How much does NW-1003 cost?") == frozenset()
    assert carries("Item: NW-1003; Unit price: 18.00", AnswerType.NUMBER,
                   measure=measured("How much does NW-1003 cost?"), exclude={"1003"})


@pytest.mark.parametrize(("sentence", "named"), [
    ("The team decided.", False),
    ("Our maintainers review every change.", False),
    ("The whole team decided.", False),
    ("The platform team maintains the replication code.", True),
    ("Zoë Müller maintains the project.", True),
    ("Large refunds must be approved by the finance controller.", True),
    ("Access requests are approved by your manager.", True),
    ("Our managers approve it.", False),
])
def test_a_who_answer_names_someone(sentence: str, named: bool) -> None:
    assert carries(sentence, AnswerType.NAME) is named


@pytest.mark.parametrize(("question", "sides"), [
    ("WAL vs journal mode?", ({"wal"}, {"journal", "mode"})),
    ("WAL vs. journal mode?", ({"wal"}, {"journal", "mode"})),
    ("Is WAL versus rollback journal safer?", ({"wal"}, {"rollback", "journal", "safer"})),
    ("How fast is WAL compared to journal mode?", ({"wal"}, {"journal", "mode"})),
    ("Is the timeout versus the heartbeat safer?", ({"timeout"}, {"heartbeat", "safer"})),
    ("How long is the timeout compared to the heartbeat?", ({"timeout"}, {"heartbeat"})),
    ("Should I use WAL or journal mode?", ({"use", "wal"}, {"journal", "mode"})),
    ("Which is faster: WAL or journal mode?", ({"wal"}, {"journal", "mode"})),
    ("What is the difference between WAL and journal mode?", ({"wal"}, {"journal", "mode"})),
    ("How do I enable or disable logging?", None),
    ("Whether or not to use WAL?", None),
    ("What is WAL mode?", None),
])
def test_comparisons_are_read_as_comparisons(question: str,
                                             sides: tuple[set[str], set[str]] | None) -> None:
    expected = () if sides is None else tuple(frozenset(stem(w) for w in s) for s in sides)
    assert compared(question) == expected


def test_the_misfires_no_longer_answer_through_the_pipeline(tmp_path: Path,
                                                             minilm: Embedder) -> None:
    """A bare number is no year, "the team" names no one, "3 times" is no duration: the
    answer-type check fails; a comparison needs a passage that names both sides."""
    with Pipeline(SQLiteStore(tmp_path / "misfires.db"), minilm) as pipe:
        pipe.ingest_text("# Replication timeout\n\nThe replication timeout is 2000 ms. Replication "
                         "requests are retried 3 times before the node is marked down.\n\n"
                         "# Ownership\n\nThe team decided to keep the replication code small.",
                         source="replication.md")
        for question in ("When was the replication timeout introduced?",
                         "Who decided to keep the replication code small?"):
            answer = pipe.ask(question)
            check = next(c for c in answer.checks if c.name == "answer_type")
            assert not answer.answered and not check.passed and check.value == "none", question
        # "A vs / versus / compared to / or B": a passage must name both sides
        for question in ("Replication timeout vs heartbeat?",
                         "Is the replication timeout versus the heartbeat safer?",
                         "How long is the replication timeout compared to the heartbeat?",
                         "Should I tune the replication timeout or the heartbeat?"):
            answer = pipe.ask(question)
            check = next(c for c in answer.checks if c.name == "passage_coverage")
            assert not answer.answered and not check.passed, question
            assert "a comparison: the passage must name both sides" in check.detail, question
    with Pipeline(SQLiteStore(tmp_path / "times.db"), minilm) as pipe:
        pipe.ingest_text("# Job retries\n\nFailed jobs are retried 3 times before they are "
                         "dropped.", source="jobs.md")
        answer = pipe.ask("How long are failed jobs retried?")
        check = next(c for c in answer.checks if c.name == "answer_type")
        assert not answer.answered and not check.passed and check.value == "none"


CHANGELOG = """\
# Changelog

## 10.4.2

### Bugfixes

- Fixed a performance regression in directory walking.

## 10.4.0

### Features

- Add --ignore-contain option to ignore directories containing a named entry.
- Add --format option for custom output.
"""


def test_a_release_heading_dates_and_versions_the_entries_under_it(tmp_path: Path,
                                                                   minilm: Embedder) -> None:
    """"When was --ignore-contain added?" and "which release added it?" were refused
    ``answer_type_missing``: the release stands in the heading two levels above the entry."""
    with Pipeline(SQLiteStore(tmp_path / "changes.db"), minilm) as pipe:
        pipe.ingest_text(CHANGELOG, source="CHANGELOG.md")
        for question in ("When was --ignore-contain added?",
                         "Which release added the --ignore-contain option?"):
            answer = pipe.ask(question)
            check = next(c for c in answer.checks if c.name == "answer_type")
            assert check.passed and check.value in ("date", "version"), question
            assert answer.answered and "10.4.0" in answer.text, question


MAIL = """\
From: Ingrid Solberg <ingrid@tidewater.example>
To: platform-team@tidewater.example
Subject: Postmortem: gateway outage on 14 March
Date: Fri, 15 Mar 2024 09:12:00 +0100
Content-Type: text/plain; charset=utf-8

Hi all,

The gateway outage on 14 March lasted 47 minutes. The root cause was an expired
intermediate certificate on the admin console listener.
"""


def test_a_section_headed_by_the_subject_is_on_it_in_every_row(tmp_path: Path,
                                                               minilm: Embedder) -> None:
    """Found by a newcomer: "Who sent the postmortem about the gateway outage?" was refused
    answer_type_missing, the mail's From row naming no word of the subject its heading names."""
    (tmp_path / "outage.eml").write_text(MAIL)
    with Pipeline(SQLiteStore(tmp_path / "mail.db"), minilm) as pipe:
        pipe.ingest([tmp_path / "outage.eml"])
        answer = pipe.ask("Who is the postmortem about the gateway outage from?")
        assert answer.answered and "Ingrid Solberg" in answer.text, answer.refusal
        # the header row reads as a mail client shows it: asked who sent it and when, the
        # words "sent" are in the row (they were refused low_coverage: "sent" nowhere)
        sender = pipe.ask("Who sent the postmortem about the gateway outage?")
        when = pipe.ask("When was the gateway outage postmortem sent?")
    assert sender.answered and "Ingrid Solberg" in sender.text, sender.refusal
    assert when.answered and "15 Mar 2024" in when.text, when.refusal


@pytest.mark.parametrize(("question", "reference"), [
    ("How do I fix it?", "it"),
    ("Is that safe?", "that"),
    ("Is it thread-safe?", "it"),  # a hyphenated word is one word
    ("What about the second one?", "What about"),
    ("How do I roll it back?", "it"),  # "back" is the verb's
])
def test_a_question_that_names_nothing_it_refers_to_is_marked(question: str,
                                                               reference: str) -> None:
    from abstain.question import Question

    assert Question.parse(question).refers_to == reference


@pytest.mark.parametrize("question", [
    "My build fails with a timeout. How do I fix it?",  # the sentence before names it
    "What does E1207 mean? And how do I fix it?",  # an identifier
    "Does it support Python 3.12?",  # a name
    "what about locking migrations?",  # says what it is about
    "How do I turn off the cache when it is full?",  # words enough to name it
    "I queue 3 tasks and the second one crashes - does the third still run?",
    "Wie viel kostet ein Tagespass?",
    "Wie oft kann ich ein Buch aus der Stadtbibliothek verlängern?",
    "Qu'est-ce que la sauvegarde ?",  # an article, not a pronoun
    "¿Qué es la replicación?",
    "Wat is het wachtwoord?",
])
def test_a_question_that_names_what_it_asks_about_is_not(question: str) -> None:
    from abstain.messages import detect_language
    from abstain.question import Question

    assert Question.parse(question, detect_language(question)).refers_to is None


@pytest.mark.parametrize(("question", "reference"), [
    ("Wie behebe ich das?", "das"),
    ("Comment réparer ça ?", "ça"),
    ("¿Cómo lo arreglo?", "lo"),
    ("Hoe los ik dat op?", "dat"),
    ("¿Y qué pasa con el segundo?", "¿Y qué pasa con"),
])
def test_a_follow_up_is_marked_in_the_languages_abstain_reads(question: str,
                                                              reference: str) -> None:
    from abstain.messages import detect_language
    from abstain.question import Question

    assert Question.parse(question, detect_language(question)).refers_to == reference


def test_a_follow_up_alone_is_refused_before_retrieval() -> None:
    from abstain.validate import validate

    trace = validate("How do I fix it?", "default", generator="extractive")
    assert trace.outcome is not None and trace.outcome.refusal is not None
    refusal = trace.outcome.refusal
    assert refusal.reason == "needs_clarification"
    assert refusal.message.startswith("The question refers to “it” without saying what")
    assert [s.name for s in trace.stages] == ["validate"]


@pytest.mark.parametrize(("message", "goes_on"), [
    ("can I do it from the API?", True),  # "it": said before
    ("and for the pro plan?", True),
    ("how often should I do it?", True),
    ("Is it possible to export my data as CSV?", False),  # "it" of the sentence itself
    ("Which setting controls the timeout that applies to uploads?", False),  # "that" qualifies
    ("who do I escalate to if that fails?", True),  # a condition on what was said before
    ("what if this doesn't work?", True),
    ("Which error is raised when that limit is reached?", False),
    ("How do I request production database access and who approves it?", False),  # says it
    ("What are the API rate limits?", False),
    ("How do I reset my password?", False),
])
def test_a_chat_message_that_goes_on_from_the_one_before_is_told_apart(message: str,
                                                                       goes_on: bool) -> None:
    from abstain.asked import follows_on
    from abstain.question import Question

    asked = Question.parse(message)
    assert follows_on(asked.asked, asked.language, asked.content_count) is goes_on


@pytest.mark.parametrize("message", ["thanks!", "ok", "Why?", "hi there"])
def test_a_message_that_names_nothing_is_refused_before_retrieval(message: str) -> None:
    from abstain.validate import validate

    trace = validate(message, "default", generator="extractive")
    assert trace.outcome is not None and trace.outcome.refusal is not None
    assert trace.outcome.refusal.reason == "needs_clarification"
    assert trace.outcome.refusal.message.startswith("There is nothing here to look up")
    assert [s.name for s in trace.stages] == ["validate"]


def test_a_time_of_day_is_no_amount() -> None:
    """A newcomer's "How much does lunch cost in the cafeteria?" was answered by "The
    cafeteria is open from 11:30 to 14:00.": a clock time counted as the amount."""
    how_much = AskedType.of(Question.parse("How much does lunch cost in the cafeteria?"))
    for sentence in ("The cafeteria is open from 11:30 to 14:00.",
                     "Orders close at 9:05 pm.", "The backup starts at 02:00:00."):
        assert not how_much.carried_by(sentence), sentence
    for sentence in ("Lunch costs 7.50 EUR and is served from 11:30.",
                     "The screen is 16:9 and costs 300 dollars."):
        assert how_much.carried_by(sentence), sentence
    assert not carries("Open from 11:30 to 14:00.", AnswerType.NUMBER)
    assert carries("Aspect ratio 16:9.", AnswerType.NUMBER)  # a ratio is no time of day
    # a span written as a clock still answers how many minutes (a review's find)
    minutes = AskedType.of(Question.parse("How many minutes is the session timeout?"))
    assert minutes.carried_by("Session timeout: 00:30:00")


def test_a_dotted_setting_is_held_by_the_headings_that_spell_it() -> None:
    """Found on Alacritty's man page: ``cursor.style.blinking`` is documented under the
    headings CURSOR / style = {…} / blinking = …, and no line writes it, so only the
    changelog's one mention of it was kept as evidence."""
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit, key_path

    path = ("ALACRITTY(5)", "CURSOR", "style = { <shape>, <blinking> }",
            'blinking = "Never" | "Off" | "On" | "Always"')
    assert key_path(path) == "ALACRITTY.CURSOR.style.blinking"
    assert key_path(("[window]", "decorations = x")) == "window.decorations"
    assert key_path(("Installing on Linux", "Troubleshooting the install")) == ""
    text = "- Never: Prevent the cursor from ever blinking\nDefault: \"Off\""
    doc = Document("d", "default", "alacritty.5.md", "ALACRITTY(5)", "h")
    ev = Evidence(FusedHit("c", 1.0), Chunk("c", "d", ChunkKind.CHILD, text, 0,
                                            heading_path=path), doc, text)
    [wanted] = Question.parse("What values can cursor.style.blinking take?").identifiers
    assert holds(wanted, ev.labelled_text)
    [other] = Question.parse("What values can cursor.shape.blinking take?").identifiers
    assert not holds(other, ev.labelled_text)


@pytest.mark.parametrize(("sentence", "stated"), [
    ('Possible values: "Always", "Never", "Preserve"', True),
    ('blinking = "Never" | "Off" | "On" | "Always"', True),
    ("Valid values are debug, info and warn.", True),
    ("This setting supports three values: enable and disable and check-only.", True),
    ("Type: default, append-only, ndjson, silent", True),
    ('Default value: "Never"', False),
    ("Type: string", False),
    ("ps aux | grep python | wc -l", False),
    ("This is one of the most common errors.", False),  # found in review
    ("It must be one of: json, xml.", True),
    ("| `--foo` | `str` | the name |", False),
])
def test_what_states_the_values_a_setting_accepts(sentence: str, stated: bool) -> None:
    assert carries(sentence, AnswerType.CHOICES) is stated


def test_the_values_asked_for_choose_the_quote_but_refuse_nothing() -> None:
    """rustfmt's reference lists each option's default before its possible values: "Which
    values does it accept?" was answered with the default. Values are stated in too many
    forms for a sentence test to refuse on (GUIDES_ONLY)."""
    from abstain.align import answer_type_check
    from abstain.align.question import Focus
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
    from abstain.generate.extractive import ExtractiveGenerator
    from abstain.records import TermCounts

    text = ('Controls whether to include a leading pipe on match arms\n- Default value: '
            '"Never"\n- Possible values: "Always", "Never", "Preserve"\n- Stable: Yes')
    doc = Document("d", "default", "Configurations.md", "Configuring Rustfmt", "h")
    ev = Evidence(FusedHit("c", 1.0), Chunk("c", "d", ChunkKind.CHILD, text, 0, heading_path=(
        "Configuring Rustfmt", "match_arm_leading_pipes")), doc, text)
    question = Question.parse("Which values does the match_arm_leading_pipes option accept?")
    quoted = [s.text for s in ExtractiveGenerator().generate(question, [ev]).sentences]
    assert quoted[0] == 'Possible values: "Always", "Never", "Preserve"'
    bare = Evidence(FusedHit("b", 1.0), Chunk("b", "d", ChunkKind.CHILD, "Stable: Yes", 0,
                                              heading_path=("match_arm_leading_pipes",)),
                    doc, "Stable: Yes")
    check = answer_type_check(Focus.of(question, TermCounts(10, {})), (bare,))
    assert check.passed and check.value == "none"


# -- a one-letter flag: looked up where it is defined ------------------------

GREP = ("-L, --files-without-match: Suppress normal output; print the name of each file from "
        "which no output would have been printed.\n"
        "-l, --files-with-matches: Suppress normal output; print the name of each file from "
        "which output would have been printed.\n"
        "-c, --count: Print a count of matching lines for each input file.")


def _flag_evidence(texts: list[str], headings: tuple[str, ...] = ("OPTIONS",)) -> tuple:
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit

    doc = Document("d", "default", "grep.1.gz", "GREP(1)", "h")
    return tuple(Evidence(FusedHit(f"c{i}", 1.0 - i / 10),
                          Chunk(f"c{i}", "d", ChunkKind.CHILD, t, i, heading_path=headings),
                          doc, t) for i, t in enumerate(texts))


@pytest.mark.parametrize(("line", "terms"), [
    ("- -l, --files-with-matches: Suppress normal output", ["-l, --files-with-matches",
                                                           "Suppress"]),
    ("CLI: | -f/--format <formatspecifier>", ["CLI", "-f/--format"]),
    ("Flag: `-l`; Description: print names", ["Flag", "-l"]),
    ("-t sort by time", ["-t"]),
    ("Providing -L, --location multiple times has no extra effect.", ["Providing"]),
])
def test_what_a_line_defines(line: str, terms: list[str]) -> None:
    from abstain.align import definition_terms

    assert definition_terms(line) == terms


def _paged(page: str, texts: list[str]) -> list:
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit

    doc = Document(page, "default", f"{page}.1.gz", f"{page.upper()}(1)", "h")
    return [Evidence(FusedHit(f"{page}{i}", 0.5), Chunk(f"{page}{i}", page, ChunkKind.CHILD, t,
                                                         i, heading_path=("OPTIONS",)), doc, t)
            for i, t in enumerate(texts)]


@pytest.mark.parametrize(("question", "flags"), [
    ("what does grep -l do?", ["-l"]),
    ("grep -l vs grep -L", ["-l", "-L"]),  # both sides, each its case
    ("what is the difference between -l and -L?", ["-l", "-L"]),
    ("without -i, how does grep match case?", []),  # set aside: the user's context
    ("I don't use -r, how do I search only .c files?", []),
    ("I already pass -v; how do I count the non-matching lines?", []),
    ("what does --dump-config do?", []),  # a long flag: its words are searched
    ("alembic history -r -3:current fails", ["-r"]),
    ("what does xargs -0 do?", ["-0"]),  # a digit's flag after a command's name
    ("kill -9 vs plain kill?", ["-9"]),
    ("lines_after_imports is -1 in my config", []),  # a number
    ("What does setting max_overflow to -1 do?", []),
])
def test_the_one_letter_flags_asked(question: str, flags: list[str]) -> None:
    assert [m.text for m in Question.parse(question).letter_flags] == flags


def test_an_asked_flag_is_read_on_the_page_the_question_names() -> None:
    from abstain.align import focus_evidence
    from abstain.align.question import Focus
    from abstain.records import TermCounts

    evidence = tuple(_paged("grep", [GREP]) + _paged("ls", ["-a: do not ignore entries "
                                                             "starting with .", "-l: use a "
                                                             "long listing format"]))
    asked = Focus.of(Question.parse("what does the ls -l option print?"), TermCounts(10, {}))
    assert [e.chunk.id for e in focus_evidence(asked, evidence)][:2] == ["ls1", "grep0"]


def test_an_asked_flag_that_only_its_other_case_defines_is_refused() -> None:
    """head has -q, ls has -Q: "what does head -Q do?" must not be answered with -q."""
    from abstain.align import entity_check
    from abstain.align.question import Focus
    from abstain.records import TermCounts

    evidence = tuple(_paged("head", ["-q, --quiet: never print headers giving file names"]))
    focus = Focus.of(Question.parse("what does head -Q do?"), TermCounts(10, {"q": 3}))
    verdict = entity_check(focus, evidence, lambda: [])
    assert not verdict.check.passed and verdict.check.reason == "entity_not_in_evidence"
    focus = Focus.of(Question.parse("what does head -q do?"), TermCounts(10, {"q": 3}))
    assert entity_check(focus, evidence, lambda: []).check.passed


def test_the_chunk_that_defines_an_asked_flag_comes_first() -> None:
    from abstain.align import focus_evidence
    from abstain.align.question import Focus
    from abstain.records import TermCounts

    mentions = "Unlike -l, the count is printed per file.\nSee also -c."
    evidence = _flag_evidence(["Regular expressions follow POSIX.", mentions, GREP])
    asked = Focus.of(Question.parse("what does grep -l do?"), TermCounts(10, {}))
    assert [e.chunk.id for e in focus_evidence(asked, evidence)] == ["c2", "c1", "c0"]
    other = Focus.of(Question.parse("what does grep -w do?"), TermCounts(10, {}))
    assert focus_evidence(other, evidence) == ()  # no chunk holds it: as retrieved
    in_code = _flag_evidence(["```\ngrep -l foo: bar\n```", mentions])
    assert [e.chunk.id for e in focus_evidence(asked, in_code)] == ["c0", "c1"]  # held only


def test_an_asked_flag_is_quoted_from_its_own_definition_not_its_siblings() -> None:
    """The reader reads case-blind (-l and -L alike), and word overlap finds no word in
    "-l": the definitions of other flags are left out of the quote."""
    from abstain.generate.extractive import ExtractiveGenerator

    evidence = _flag_evidence([GREP])
    for asked, defined, other in (("-l", "--files-with-matches", "--files-without-match"),
                                  ("-L", "--files-without-match", "--files-with-matches")):
        quote = ExtractiveGenerator().generate(
            Question.parse(f"what does grep {asked} do? print file names"), evidence)
        text = " ".join(s.text for s in quote.sentences)
        assert f"{defined}:" in text and f"{other}:" not in text



def test_both_flags_asked_are_quoted_and_no_sentence_of_another_flag() -> None:
    from abstain.generate.extractive import ExtractiveGenerator

    both = ExtractiveGenerator().generate(Question.parse("grep -l or -L? print file names"),
                                          _flag_evidence([GREP]))
    text = " ".join(s.text for s in both.sentences)
    assert "--files-with-matches:" in text and "--files-without-match:" in text
    long = ("-M: Places the client into master mode for connection sharing. Multiple -M options "
            "place it into master mode with confirmation.\n-l login_name: Specifies the user to "
            "log in as on the remote machine.")
    quote = ExtractiveGenerator().generate(Question.parse("ssh -l: which user on the remote "
                                                          "machine?"), _flag_evidence([long]))
    text = " ".join(s.text for s in quote.sentences)
    assert "login_name" in text and "master mode" not in text


def test_vs_says_how_a_comparison_is_asked_not_what_about() -> None:
    """"tail -f vs tail -F?" was refused because no passage says "vs"."""
    from abstain.align import coverage_check
    from abstain.align.question import Focus
    from abstain.records import TermCounts

    for question in ("tail -f vs tail -F?", "Is WAL versus rollback journal safer?"):
        assert not {"vs", "versus"} & {t.word for t in Question.parse(question).terms}
    evidence = tuple(_paged("tail", ["-f, --follow: output appended data as the file grows",
                                     "-F: same as --follow=name --retry"]))
    focus = Focus.of(Question.parse("tail -f vs tail -F?"), TermCounts(10, {"tail": 2}))
    check, _ = coverage_check(focus, evidence, 0.5)
    assert check.passed, check.detail


def test_an_asked_flag_that_the_named_tools_page_lacks_is_refused() -> None:
    """"ssh-keygen -W" with ssh-keygen's options kept and awk's -W beside them: -W exists in
    the workspace, but not as an option of the tool asked about."""
    from abstain.align import entity_check
    from abstain.align.question import Focus
    from abstain.records import TermCounts

    evidence = tuple(_paged("ssh-keygen", ["-t dsa | ecdsa | rsa: Specifies the type of key",
                                            "-b bits: Specifies the number of bits"])
                     + _paged("awk", ["-W version: print the version and exit"]))
    counts = TermCounts(10, {"w": 1, "t": 1, "ssh": 2, "keygen": 2})
    asked = Focus.of(Question.parse("What does ssh-keygen -W do?"), counts)
    verdict = entity_check(asked, evidence, lambda: [])
    assert not verdict.check.passed and verdict.check.reason == "entity_not_in_evidence"
    assert entity_check(Focus.of(Question.parse("What does ssh-keygen -t do?"), counts),
                        evidence, lambda: []).check.passed
    unnamed = Focus.of(Question.parse("What does -W do?"), counts)  # no tool named: awk's
    assert entity_check(unnamed, evidence, lambda: []).check.passed


def test_a_reading_of_other_flags_only_quotes_nothing_of_it() -> None:
    """The reader read only the -L / -c definitions (the -l chunk was kept but not read): its
    quote is empty, not a crash and not another flag's text."""
    from dataclasses import replace as with_

    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    defined, other = _flag_evidence(["-l, --files-with-matches: print the name of each file "
                                     "that matches.", GREP.split("\n")[0]])
    line = GREP.split("\n")[0]
    other = with_(other, read=(ReadWindow(line, (line,), 0.99, 0),))
    quote = ExtractiveGenerator().quote_reading(Question.parse("what does grep -l do?"),
                                                [defined, other])
    assert quote.sentences == ()


OPTIONS_PAGE = """\
# Options

## Auditing

### audit-requires

Install Python dependencies for the audit step.

Default: `abi3audit`

#### Examples

```toml
[tool.cibuildwheel]
audit-requires = ["twine"]
audit-command = "twine check {wheel}"
```

### audit-command

Use a tool to check wheels before the end of the run.

Default: `abi3audit --strict --report {abi3_wheel}`

#### Examples

```toml
# Run a custom audit tool on all wheels
[tool.cibuildwheel]
audit-command = "my-audit-tool --check {wheel}"
# Run several audit commands
audit-command = ["./my-audit-tool --check-abi3 {abi3_wheel}", "./my-audit-tool {wheel}"]
# Keep the default audit-command and add twine
audit-command = "twine check {wheel}"
```
"""


def test_the_section_an_asked_option_name_heads_comes_first(tmp_path: Path,
                                                            minilm: Embedder) -> None:
    """"What is the default audit-command?" was answered with the option's examples, which
    say "audit-command" five times: running text does not take "audit-command" for an
    identifier, so nothing looked for its own section. The section it heads ranks first."""
    from abstain.align.checks import headed_first
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit

    def chunk(n: int, *path: str) -> Evidence:
        doc = Document("d", "default", "options.md", "Options", "h")
        return Evidence(FusedHit(f"c{n}", 1.0), Chunk(f"c{n}", "d", ChunkKind.CHILD, "text", n,
                                                      heading_path=path), doc, "text")

    examples, own, other = (chunk(0, "Options", "audit-command", "Examples"),
                            chunk(1, "Options", "audit-command"),
                            chunk(2, "Options", "audit-requires"))
    asked = Question.parse("What is the default audit-command in cibuildwheel?")
    assert headed_first(asked, (examples, other, own)) == (own, examples, other)
    assert headed_first(Question.parse("How do I audit my wheels?"), (examples, own)) == ()
    prose = chunk(3, "Logging", "Handlers", "Thread-safe")
    assert headed_first(Question.parse("Is a Session thread-safe?"), (examples, prose)) == ()
    page = Evidence(FusedHit("c4", 1.0), Chunk("c4", "e", ChunkKind.CHILD, "text", 0,
                                               heading_path=("highlight.js",)),
                    Document("e", "default", "highlightjs.adoc", "highlight.js", "h"), "text")
    assert headed_first(Question.parse("What theme does highlight.js use by default?"),
                        (examples, page)) == ()
    with Pipeline(SQLiteStore(tmp_path / "options.db"), minilm) as pipe:
        pipe.ingest_text(OPTIONS_PAGE, source="options.md")
        answer = pipe.ask("What is the default audit-command in cibuildwheel?")
    assert answer.answered and "abi3audit --strict --report" in answer.text, answer.refusal


@pytest.mark.parametrize(("question", "sentence", "carried"), [
    # another name's version, a command's argument: not the release asked
    ("Which kind release first supported the nftables kube-proxy mode?",
     "You can configure the kube-proxy mode: iptables, nftables (Kubernetes v1.31+) or ipvs.",
     False),
    ("In which nvm release was the --offline flag for nvm install added?",
     "nvm install --offline 14.7.0", False),
    ("Which nvm release introduced the nvm reinstall-packages command?",
     "```\nnvm use 22.22.2\nnvm reinstall-packages 22.20.0\n```", False),
    # the asked one's, a name the question says, a release line, a version alone
    ("Which Rollup release added the forceExit CLI flag?", "4.3.0", True),
    ("Which Python version does pendulum require?", "It requires Python 3.9 or newer.", True),
    ("Since which version does ruff support Python 3.13?",
     "Ruff 0.6.0 added support for Python 3.13.", True),
    ("Which release of kopia added compression?", "Compression was added in Kopia v0.8.", True),
    ("Which release added --ssl-ciphers?", "Added --ssl-ciphers in version 0.11.4.", True),
    ("Which kind release added nftables?", "Kubernetes v0.24.0 (2024-08-15)", True),
])
def test_a_version_asked_of_one_thing_is_not_another_s(question: str, sentence: str,
                                                       carried: bool) -> None:
    """Near misses answered with a version of something else: "Which kind release first
    supported nftables?" with "nftables (Kubernetes v1.31+)", "In which nvm release was
    --offline added?" with ``nvm install --offline 14.7.0`` (a Node version)."""
    asked = AskedType.of(Question.parse(question))
    assert asked is not None and asked.expected is AnswerType.VERSION
    assert asked.carried_by(sentence) is carried


def test_the_section_an_asked_identifier_heads_comes_before_its_examples() -> None:
    """Both chunks hold ``max_width``; its examples say it more often and rank first on
    words. The entry it heads ("max_width (integer)") defines it; a prose heading of its words
    ("Width limits") or an example below it does not."""
    from abstain.align import focus_evidence
    from abstain.align.question import Focus
    from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
    from abstain.records import TermCounts

    def chunk(n: int, text: str, *path: str) -> Evidence:
        doc = Document("d", "default", "Configurations.md", "Configurations", "h")
        return Evidence(FusedHit(f"c{n}", 1.0), Chunk(f"c{n}", "d", ChunkKind.CHILD, text, n,
                                                      heading_path=path), doc, text)

    examples = chunk(0, "max_width = 80\nmax_width = 120", "Configurations", "max_width",
                     "Examples")
    prose = chunk(1, "Set max_width to wrap sooner.", "Configurations", "Width limits")
    own = chunk(2, "Maximum width of each line. Default value: 100",
                "Configurations", "max_width (integer)")
    focus = Focus.of(Question.parse("What does max_width do?"), TermCounts(10, {}))
    assert [e.chunk.id for e in focus_evidence(focus, (examples, prose, own))] == [
        "c2", "c0", "c1"]
