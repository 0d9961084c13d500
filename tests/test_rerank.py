"""The shipped reader (int8 ONNX, no torch): reranking, the reading stage, support."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from abstain.answer import Answer
from abstain.evidence import Chunk, ChunkKind, Document, Evidence, FusedHit
from abstain.gate import GateThresholds
from abstain.pipeline import Pipeline
from abstain.question import Question
from abstain.rerank import Reranker, rerank
from abstain.rerank.modelfile import IN_CONTEXT, READS_KEY
from abstain.rerank.reader import (
    MODEL_NAME,
    LazyReader,
    OnnxReader,
    model_file,
    shared_reader,
)
from abstain.rerank.reading import READ_WINDOWS, read_evidence
from abstain.rerank.support import ReaderSupport
from abstain.rerank.windows import CONTEXT_WORDS, in_context
from abstain.stores.sqlite import SQLiteStore
from abstain.verify import Verifier
from tests.reader_support import KeywordReader

PORT = "Replication traffic uses TCP port 7400 between the primary and each replica."
WEATHER = "The office kitchen is cleaned every Friday afternoon by the facilities team."


@pytest.fixture(scope="module")
def reader() -> OnnxReader:
    return shared_reader()


def _evidence(texts: list[str]) -> list[Evidence]:
    doc = Document("d", "default", "d.md", "D", "h")
    return [Evidence(FusedHit(f"c{i}", 1.0 - i / 10), Chunk(f"c{i}", "d", ChunkKind.CHILD, t, i),
                     doc, t) for i, t in enumerate(texts)]


def test_shipped_model_file() -> None:
    path = model_file()
    assert path.name == f"{MODEL_NAME}.onnx"
    assert path.stat().st_size <= 25_000_000


def test_reader_scores_answering_text_higher(reader: OnnxReader) -> None:
    assert isinstance(reader, Reranker)
    scores = reader.score("Which port does replication use?", [WEATHER, PORT])
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores[1] > scores[0] + 0.2
    assert reader.score("anything", []) == []
    assert reader.logits([], []).shape[0] == 0
    assert reader.logits(['q'], ['a']).shape == (1, 3)  # answers, supports, relevance


def test_rerank_reorders_and_records_scores(reader: OnnxReader) -> None:
    ranked = rerank(reader, "Which port does replication use?", _evidence([WEATHER, PORT, "x"]),
                    depth=2)
    assert [e.chunk_id for e in ranked] == ["c1", "c0", "c2"]
    assert ranked[0].rerank_score is not None and ranked[2].rerank_score is None
    assert ranked[0].to_json()["rerank_score"] == pytest.approx(ranked[0].rerank_score, abs=1e-6)


def test_support_scorer_is_a_verifier(reader: OnnxReader) -> None:
    support = ReaderSupport(reader)
    assert isinstance(support, Verifier)
    good = support.check("Replication uses port 7400.", [WEATHER, PORT])
    bad = support.check("Replication uses port 9100.", [WEATHER, PORT])
    assert good > bad
    assert support.check("", [PORT]) == 0.0 and support.check("x", []) == 0.0


class FixedReader:
    """A reader whose answers logit is fixed: the gate's use of a reading, without a model."""

    name = "fixed"

    def __init__(self, logit: float) -> None:
        self.logit = logit
        self.pairs = 0

    def logits(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        self.pairs += len(b)
        return np.full((len(b), 3), self.logit, dtype=np.float32)


OPS = f"# Replication\n\n{PORT}\n\n# Kitchen\n\n{WEATHER}\n"


def _ask(db: Path, embedder: object, question: str, **kwargs: object) -> Answer:
    with Pipeline(SQLiteStore(db), embedder, **kwargs) as pipe:  # type: ignore[arg-type]
        if not pipe.store.list_documents():
            pipe.ingest_text(OPS, source="ops.md")
        return pipe.ask(question)


def test_read_evidence_reads_the_windows_that_share_words(reader: OnnxReader) -> None:
    long = " ".join(f"Sentence {i} is about the weather in the hills." for i in range(30))
    reading = read_evidence(reader, Question.parse("Which port does replication use?"),
                            _evidence([long, f"{WEATHER} {PORT}"]))
    assert reading is not None
    assert reading.windows_read == READ_WINDOWS and reading.chunks_read == 2
    assert reading.chunk == 1 and "7400" in reading.window
    assert reading.answerability > 0.5
    assert read_evidence(reader, Question.parse("Which port?"), []) is None


def test_the_reader_refuses_what_the_evidence_does_not_answer(tmp_path: Path,
                                                             hashing: object) -> None:
    question = "Which TCP port does replication traffic use?"
    answer = _ask(tmp_path / "r.db", hashing, question, reader=True)
    check = next(c for c in answer.checks if c.name == "answerability")
    assert answer.answered, answer.refusal
    assert "read_ms" in answer.timings_ms
    assert answer.features["answerability"] == check.value
    assert float(check.value) > 0.5  # the shipped model reads the port sentence as an answer
    # The same question with the bar just above its reading is refused, for that reason only.
    refused = _ask(tmp_path / "r.db", hashing, question, reader=True,
                   answerability_threshold=min(1.0, float(check.value) + 1e-3))
    assert refused.refusal is not None and refused.refusal.reason == "unanswerable"
    assert "do not answer this question" in refused.refusal.message
    assert [c.name for c in refused.checks if not c.passed] == ["answerability"]


def test_refusals_settled_before_reading_cost_no_reading(tmp_path: Path,
                                                        hashing: object) -> None:
    fixed = FixedReader(5.0)
    answer = _ask(tmp_path / "r.db", hashing, "Which port does replication use for E4242?",
                  reader=fixed)
    assert answer.refusal is not None and answer.refusal.reason == "unknown_entity"  # none names it
    assert fixed.pairs == 0 and "read_ms" not in answer.timings_ms
    assert "answerability" not in answer.features


def test_a_confident_reading_waives_only_the_word_level_checks(tmp_path: Path,
                                                              hashing: object) -> None:
    # No number stands next to "replicas": the answer-type check fails.
    question = "How many replicas receive replication traffic?"
    plain = _ask(tmp_path / "r.db", hashing, question, reader=False)
    failed = {c.name for c in plain.checks if not c.passed}
    assert failed and failed <= {"informative_coverage", "passage_coverage", "answer_type",
                                 "term_coverage", "calibrated_confidence"}, failed
    lexical = failed - {"calibrated_confidence"}
    waiving = GateThresholds(waive_lexical_at=0.9, min_confidence=0.0)
    read = _ask(tmp_path / "r.db", hashing, question, reader=FixedReader(5.0),
                thresholds=waiving)
    assert read.answered, read.refusal
    assert all("waived" in c.detail for c in read.checks if c.name in lexical)
    unsure = _ask(tmp_path / "r.db", hashing, question, reader=FixedReader(0.0),
                  thresholds=waiving)  # p = 0.5: below the waiver
    assert not unsure.answered
    assert unsure.refusal is not None and unsure.refusal.reason != "unanswerable"


def test_a_reading_that_only_vetoes_leaves_the_confidence_to_decide(tmp_path: Path,
                                                                     hashing: object) -> None:
    """The default (min_reading_confidence None): the reading refuses below
    min_answerability and the confidence the question had unread (the answer confidence)
    decides the rest; a +reader preset lets the reading calibration decide."""
    from abstain.presets import Preset

    question = "Which TCP port does replication traffic use?"
    unread = _ask(tmp_path / "r.db", hashing, question, reader=False)
    vetoing = GateThresholds()
    assert not vetoing.reading_decides
    assert Preset.BALANCED.thresholds(reading_decides=True).reading_decides
    read = _ask(tmp_path / "r.db", hashing, question, reader=FixedReader(5.0),
                thresholds=vetoing)
    assert read.answered == unread.answered and read.answered, read.refusal
    assert read.confidence == pytest.approx(unread.confidence, abs=1e-6)
    check = next(c for c in read.checks if c.name == "calibrated_confidence")
    assert check.detail.startswith("P(right) from answer-confidence")
    assert read.features["answerability"] > 0.99
    deciding = _ask(tmp_path / "r.db", hashing, question, reader=FixedReader(5.0),
                    thresholds=Preset.BALANCED.thresholds(reading_decides=True))
    assert deciding.confidence != pytest.approx(unread.confidence, abs=1e-6)
    vetoed = _ask(tmp_path / "r.db", hashing, question, reader=FixedReader(-5.0),
                  thresholds=vetoing)
    assert vetoed.refusal is not None and vetoed.refusal.reason == "unanswerable"
    assert [c.name for c in vetoed.checks if not c.passed] == ["answerability"]


def test_the_default_reader_loads_at_its_first_reading(tmp_path: Path, hashing: object,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader is on by default, but ingesting and searching never load its model."""
    import abstain.rerank.reader as reader_module

    def refuse_to_load() -> OnnxReader:
        raise AssertionError("the reader model was loaded")

    monkeypatch.setattr(reader_module, "shared_reader", refuse_to_load)
    with Pipeline(SQLiteStore(tmp_path / "l.db"), hashing) as pipe:  # type: ignore[arg-type]
        pipe.ingest_text(OPS, source="ops.md")
        assert pipe.search("replication port")
        assert isinstance(pipe.reader, LazyReader)
        with pytest.raises(AssertionError, match="was loaded"):
            pipe.ask("Which TCP port does replication traffic use?")


def test_preset_suffix_enables_reader(tmp_path: Path) -> None:
    with Pipeline.preset("balanced+reader", store=str(tmp_path / "p.db")) as pipe:
        assert isinstance(pipe.reader, LazyReader) and pipe.reranker is None
        assert pipe.reader.model is shared_reader()
    from abstain.errors import ConfigError

    with pytest.raises(ConfigError, match="reader"):
        Pipeline.preset("balanced+nope", store=str(tmp_path / "q.db"))
    # a workspace keyword (a newcomer's TypeError: "multiple values for 'workspace'")
    with Pipeline.preset("strict", store=str(tmp_path / "p.db"), workspace="hr") as pipe:
        assert pipe.workspace == "hr"


def test_hub_loader_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from abstain.errors import MissingDependency
    from abstain.rerank.hub import HubCrossEncoder

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingDependency, match=r"abstain\[train\]"):
        HubCrossEncoder("any/model")


def test_hub_models_read_a_named_class_or_say_which_is_missing() -> None:
    from abstain.errors import ConfigError
    from abstain.rerank.hub import positive_class

    nli = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}
    assert positive_class({0: "LABEL_0"}, None, "m") is None  # one logit: its sigmoid
    assert positive_class(nli, None, "m") == 1
    assert positive_class({0: "LABEL_0", 1: "LABEL_1"}, None, "m") == 1
    assert positive_class({0: "a", 1: "b", 2: "c"}, 2, "m") == 2
    with pytest.raises(ConfigError, match=r"m has 3 classes \(0=a, 1=b, 2=c\) and none is "
                                          r"labelled entailment: pass positive="):
        positive_class({0: "a", 1: "b", 2: "c"}, None, "m")
    with pytest.raises(ConfigError, match="positive=5 is not one of them"):
        positive_class(nli, 5, "m")


class LastFirst:
    """A reranker that puts the last text first and keeps the others in order."""

    name = "last-first"

    def score(self, question: str, texts: list[str]) -> list[float]:
        return [0.5 - i / 100 for i in range(len(texts) - 1)] + [1.0]


def test_rerank_fuses_with_the_retrieval_order_unless_told_not_to() -> None:
    evidence = _evidence([f"text {i}" for i in range(10)])
    fused = rerank(LastFirst(), "q", evidence, depth=10)
    alone = rerank(LastFirst(), "q", evidence, depth=10, fuse=False)
    assert alone[0].chunk_id == "c9"  # the reranker alone replaces the retrieval's order
    assert fused[0].chunk_id == "c0"  # fused, one reader's disagreement does not
    assert {e.chunk_id for e in fused} == {e.chunk_id for e in evidence}


def test_relevance_head_reranks_what_is_about_the_question(reader: OnnxReader) -> None:
    from abstain.rerank.reader import ReaderRelevance

    relevance = ReaderRelevance(reader)
    assert isinstance(relevance, Reranker)
    scores = relevance.score("Which port does replication use?", [WEATHER, PORT])
    assert scores[1] > scores[0]
    assert relevance.score("q", []) == []


MANUAL = ("# Replication\n\nReplication copies every write to the standby nodes. The "
          "replication settings live in the cluster file and replication is on by default.\n\n"
          "Each node listens for replication traffic on TCP port 7400 unless told otherwise. "
          "It can be changed with the --replication-port flag.\n")


def test_the_answer_quotes_the_window_the_reader_found_answering(tmp_path: Path,
                                                                 hashing: object) -> None:
    question = "Which TCP port does replication traffic use?"
    with Pipeline(SQLiteStore(tmp_path / "q.db"), hashing,  # type: ignore[arg-type]
                  reader=KeywordReader("7400"),
                  thresholds=GateThresholds(waive_lexical_at=0.9, min_confidence=0.0,
                                            min_reading_confidence=0.0),  # the reading decides
                  reading_calibration=None) as pipe:
        pipe.ingest_text(MANUAL, source="manual.md")
        answer = pipe.ask(question)
    assert answer.answered, answer.refusal
    assert "7400" in answer.text
    assert "cluster file" not in answer.text  # the word-rich sentence the reader passed over
    assert answer.citations and answer.citations[0].source.endswith("manual.md")
    assert any("answering window" in note for note in answer.notes)


def test_an_answer_quotes_one_row_of_a_table_wherever_the_chunks_cut_it() -> None:
    """"Who is primary on call in week 6?" quoted week 8's row too, found in another chunk
    of the same table; rows that match alike both stay (the question does not tell them
    apart)."""
    from abstain.generate.extractive import ExtractiveGenerator

    week6 = "- Week: 6; From: 2026-02-09; Primary: Lena Fischer; Secondary: Priya Shah"
    week8 = "- Week: 8; From: 2026-02-23; Primary: Marco Rossi; Secondary: Jonas Weber"
    quoted = ExtractiveGenerator().quote_overlap(
        Question.parse("Who is primary on call in week 6?"), _evidence([week8, week6]))
    assert [s.text for s in quoted.sentences] == [week6.removeprefix("- ")]
    alike = ExtractiveGenerator().quote_overlap(
        Question.parse("Who is primary on call?"), _evidence([week8, week6]))
    assert len(alike.sentences) == 2
    [other_team, ours] = _evidence([week8, week6])
    rotas = [replace(other_team, document=Document("b", "default", "team-b.md", "B", "h")), ours]
    both = ExtractiveGenerator().quote_overlap(
        Question.parse("Who is primary on call in week 6?"), rotas)
    assert len(both.sentences) == 2  # another team's rota is no other record of this one


def test_a_how_to_question_gets_the_whole_procedure_not_one_step() -> None:
    """"How do I reset a password?" was answered with step 4 of 5: the identity check that
    comes first was left out."""
    from abstain.generate.extractive import ExtractiveGenerator

    steps = ["Verify the caller's identity with their employee ID.",
             "Open the Active Directory console.", "Find the user account.",
             "Reset the password and tick 'User must change password at next logon'.",
             "Tell the caller the temporary password by phone, never by email."]
    text = "To reset a password:\n" + "\n".join(f"- {s}" for s in steps)
    quoted = ExtractiveGenerator().quote_overlap(
        Question.parse("How do I reset a password?"), _evidence([text]))
    assert [s.text for s in quoted.sentences] == ["To reset a password:", *steps]
    one = ExtractiveGenerator().quote_overlap(
        Question.parse("Where do I tick 'User must change password at next logon'?"),
        _evidence([text]))
    assert len(one.sentences) == 1  # not a how-to question: the step that answers
    facts = ("Account policies:\n- Passwords expire after 90 days.\n- Locked accounts unlock "
             "by themselves after 30 minutes.\n- Guest accounts are deleted monthly.")
    unlock = ExtractiveGenerator().quote_overlap(
        Question.parse("How do I unlock a locked account?"), _evidence([facts]))
    assert [s.text for s in unlock.sentences] == [
        "Locked accounts unlock by themselves after 30 minutes."]  # a list of facts stays one
    commands = ("Before resetting a password, verify the caller's identity.\n"
                "- Open the console.\n- Find the user account.\n- Choose Reset Password.\n"
                "- Tick 'must change password at next logon'.")  # steps without a colon lead
    ticked = ExtractiveGenerator().quote_overlap(
        Question.parse("How do I make them change the password at next logon?"),
        _evidence([commands]))
    assert [s.text for s in ticked.sentences][-4:] == [
        "Open the console.", "Find the user account.", "Choose Reset Password.",
        "Tick 'must change password at next logon'."]
    long = "Follow these steps:\n" + "\n".join(f"- Step {i}: press key {i}." for i in range(1, 13))
    eleventh = ExtractiveGenerator().quote_overlap(
        Question.parse("How do I press key 11?"), _evidence([long]))
    quoted = [s.text for s in eleventh.sentences]
    assert quoted[:2] == ["Follow these steps:", "Step 1: press key 1."]  # from its start
    assert "Step 11: press key 11." in quoted
    # the section's heading leads the steps ("## Steps"): it is not quoted as if it said one
    [headed] = _evidence(["Steps\n" + "\n".join(f"- {s}" for s in steps)])
    headed = replace(headed, chunk=replace(headed.chunk, heading_path=("Resetting", "Steps")))
    reset = ExtractiveGenerator().quote_overlap(
        Question.parse("How do I reset a password?"), [headed])
    assert [s.text for s in reset.sentences] == steps


def test_the_readers_quote_leaves_out_its_sections_heading() -> None:
    """The reader's window began with the section's heading: "Printing rules [1] Colour
    printing is charged … at 8p per page." quoted the heading as a sentence."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    text = ("Printing rules\n- Colour printing is charged to your cost centre at 8p per page.\n"
            "- Jobs not released within 24 hours are deleted.")
    [ev] = _evidence([text])
    ev = replace(ev, chunk=replace(ev.chunk, heading_path=("Printers", "Printing rules")))
    window = ReadWindow(text, ("Printing rules", "Colour printing is charged to your cost "
                                                 "centre at 8p per page."), 0.96, 0)
    quoted = ExtractiveGenerator().quote_words_and_reading(
        Question.parse("how much does colour printing cost?"), [replace(ev, read=(window,))])
    assert [s.text for s in quoted.sentences] == [
        "Colour printing is charged to your cost centre at 8p per page."]
    # a heading that states something (a changelog's version) is the answer's own part
    entry = "3.18.0 (2022-09-15)\nFeatures:\n- Add Enum field (#2017)."
    [log] = _evidence([entry])
    log = replace(log, chunk=replace(log.chunk, heading_path=("Changelog", "3.18.0 (2022-09-15)")))
    read = ReadWindow(entry, ("3.18.0 (2022-09-15)", "Add Enum field (#2017)."), 0.9, 0)
    release = ExtractiveGenerator().quote_words_and_reading(
        Question.parse("Which release added a field for Python enums?"),
        [replace(log, read=(read,))])
    assert release.sentences[0].text == "3.18.0 (2022-09-15)"


def test_a_vetoing_reader_requotes_only_on_the_pages_word_overlap_chose() -> None:
    """same_pages (the default pipeline): the reader's window replaces word overlap's quote
    when it is on the same page, never when it is on another one: there it is added after
    word overlap's quote (add_best_window), which stays first."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    question = Question.parse("Which TCP port does replication traffic use?")
    wordy = ("Replication traffic settings live in the cluster file. The replication traffic "
             "is on by default.")
    port = "Each node listens on TCP port 7400 unless told otherwise."
    same_page = _evidence([f"{wordy} {port}"])
    window = ReadWindow(port, (port,), 0.98, 1)
    read_same = [replace(same_page[0], read=(window,))]
    other = Document("o", "default", "o.md", "O", "h")
    short = "Replication nodes listen on 7400."
    [elsewhere] = _evidence([short])
    [only_words] = _evidence([wordy])
    read_other = [only_words, replace(elsewhere, document=other,
                                      read=(ReadWindow(short, (short,), 0.98, 0),))]
    vetoing = ExtractiveGenerator(judge=KeywordReader("7400"), same_pages=True,
                                  add_chosen=False, add_best_window=False)
    deciding = ExtractiveGenerator(judge=KeywordReader("7400"), add_chosen=False)
    assert [s.text for s in vetoing.generate(question, read_same).sentences] == [port]
    kept = vetoing.generate(question, read_other)
    assert "7400" not in " ".join(s.text for s in kept.sentences)
    assert kept.notes and "other pages" in kept.notes[0]
    added = ExtractiveGenerator(judge=KeywordReader("7400"), same_pages=True,
                                add_chosen=False).generate(question, read_other)
    assert [s.text for s in added.sentences] == [*(s.text for s in kept.sentences), short]
    assert [s.cites for s in added.sentences][-1] == (2,)
    assert "added the reader's answering window(s) (best P(answers) 0.98)" in added.notes[-1]
    assert [s.text for s in deciding.generate(question, read_other).sentences] == [short]
    [unrelated] = _evidence(["The kitchen is cleaned on Fridays."])
    bare = "Nodes listen on 7400."
    [listen] = _evidence([bare])
    nothing = vetoing.generate(question, [unrelated, replace(
        listen, document=other, read=(ReadWindow(bare, (bare,), 0.98, 0),))])
    assert not nothing.sentences and "nothing quoted" in nothing.notes[0]  # said, not silent
    chosen = ExtractiveGenerator(judge=KeywordReader("7400"), same_pages=True,
                                 add_best_window=False).generate(
        question, read_other)  # the quote choice keeps to the quoted pages too
    assert "7400" not in " ".join(s.text for s in chosen.sentences)


def test_the_readers_window_is_added_only_to_a_quote_that_reads_as_answering() -> None:
    """The reader's best window joins the answer after the quote_reading check has read the
    quote without it: a quote of word overlap's that does not read as answering is refused
    with nothing added (the window would pass the check by itself); observed (eval
    --answer-all), the check keeps its value and the window is shown added. A window under
    BEST_WINDOW_ADDED is not added."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import BEST_WINDOW_ADDED, ExtractiveGenerator
    from abstain.records import CheckName, RefusalReason

    question = Question.parse("Which TCP port does replication traffic use?")
    wordy = "Replication traffic settings live in the cluster file."
    short = "Replication nodes listen on 7400."
    other = Document("o", "default", "o.md", "O", "h")
    [only_words] = _evidence([wordy])
    [elsewhere] = _evidence([short])

    def read_at(p: float) -> list[Evidence]:
        return [only_words, replace(elsewhere, document=other,
                                    read=(ReadWindow(short, (short,), p, 0),))]

    checked = ExtractiveGenerator(judge=KeywordReader("7400"), same_pages=True,
                                  add_chosen=False, min_quote_reading=0.02)
    refused = checked.generate(question, read_at(0.98))
    assert refused.refusal == RefusalReason.UNANSWERABLE
    assert [s.text for s in refused.sentences] == [wordy]
    [check] = [c for c in refused.checks if c.name == CheckName.QUOTE_READING]
    assert not check.passed and check.value is not None and check.value < 0.02
    checked.observing = True
    observed = checked.generate(question, read_at(0.98))
    assert observed.refusal is None and [s.text for s in observed.sentences] == [wordy, short]
    assert [c.passed for c in observed.checks if c.name == CheckName.QUOTE_READING] == [False]
    low = ExtractiveGenerator(judge=KeywordReader("7400"), same_pages=True, add_chosen=False)
    assert [s.text for s in low.generate(question, read_at(BEST_WINDOW_ADDED - 0.01)).sentences
            ] == [wordy]
    assert [s.text for s in low.generate(question, read_at(BEST_WINDOW_ADDED)).sentences
            ] == [wordy, short]


def test_an_example_differing_from_a_quoted_one_is_added() -> None:
    """Found on pdm's docs: word overlap quoted the env_file example, the reader read the
    env_file.override one best; the two code blocks share nearly every word, so the added
    window was taken for a near-duplicate and dropped, though the word they differ by is the
    answer. A code block is left out only when it is the one quoted; a prose sentence that
    near-duplicates a quoted one still is."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator
    from abstain.records import Generation, Sentence

    plain = '[tool.pdm.scripts]\nstart.cmd = "flask run -p 54321"\nstart.env_file = ".env"'
    override = ('[tool.pdm.scripts]\nstart.cmd = "flask run -p 54321"\n'
                'start.env_file.override = ".env"')
    lead = "Store the variables in a dotenv file and let the script read it:"
    text = f"{lead}\n\n```\n{plain}\n```\n\nTo let it win over the shell:\n\n```\n{override}\n```"
    [ev] = _evidence([text])
    question = Question.parse("The script's env_file values lose to variables exported in my "
                              "shell. How do I make the .env file override them?")
    generator = ExtractiveGenerator(judge=KeywordReader("override"), add_chosen=False,
                                    same_pages=True)
    quote = Generation(sentences=(Sentence(lead, (1,)), Sentence(plain, (1,))),
                       model="extractive")  # word overlap's, as it quoted pdm's page
    read = replace(ev, read=(ReadWindow(override, (override,), 0.98, 1),))
    added = generator.with_the_best_window(question, [read], quote)
    assert [s.text for s in added.sentences][-1] == override
    twin = "Store the variables in a dotenv file and let the script read them:"
    read = replace(ev, read=(ReadWindow(twin, (twin,), 0.98, 0),))
    assert generator.with_the_best_window(question, [read], quote) == quote


def test_an_added_lead_in_goes_before_the_quoted_sentence_it_introduces() -> None:
    """Found in `make demo`: the reader's quote was the lead-in "If the admin password is lost,
    run the following command as root:" with the command, which the answer already quoted;
    the lead-in alone was added at the end, introducing nothing. It goes before the command."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator
    from abstain.records import Generation, Sentence

    lead = "If the admin password is lost, run the following command as root on a node:"
    command = "sudo qsctl admin reset-password --local"
    other = "Run the reset as root on any server node."
    [first, second] = _evidence([other, f"{lead}\n\n```\n{command}\n```"])
    read = replace(second, read=(ReadWindow(f"{lead} {command}", (lead, command), 0.95, 0),))
    quote = Generation(sentences=(Sentence(other, (1,)), Sentence(command, (2,))),
                       model="extractive")
    question = Question.parse("How do I reset the admin password?")
    added = ExtractiveGenerator(judge=KeywordReader("reset"), same_pages=True).with_the_best_window(
        question, [first, read], quote)
    assert [s.text for s in added.sentences] == [other, lead, command]


def test_the_readers_quote_keeps_what_its_lead_in_introduces() -> None:
    """Found on ripgrep's FAQ: the reader read "For example:" with the error's code block and
    "… simply increasing the limit:" with the command after it best, and its quote kept the
    lead-in without the command: of a passage's code blocks only the one sharing most asked
    words (the error's) was kept, as of a passage's list items. Code blocks are not siblings
    of one another the way list items are; and a sentence a kept lead-in introduces is kept
    though it adds no word of its own."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    error = "$ rg '\\pL'\nError: pattern exceeds size limit of 10485760 bytes."
    lead = "In this case, you can work around by simply increasing the limit:"
    fix = "$ rg '\\pL' --size-limit 1G"
    [ev] = _evidence([f"For example:\n\n```\n{error}\n```\n\n{lead}\n\n```\n{fix}\n```"])
    read = replace(ev, read=(ReadWindow(f"For example: {error}", ("For example:", error), 0.97, 0),
                             ReadWindow(f"{lead} {fix}", (lead, fix), 0.99, 1)))
    question = Question.parse("Error: pattern exceeds size limit of 10485760 bytes")
    quoted = [s.text for s in ExtractiveGenerator().quote_reading(question, [read]).sentences]
    assert quoted == ["For example:", error, lead, fix]
    bare = "$ rg --size-limit"
    [ev] = _evidence([f"{lead}\n\n```\n{bare}\n```"])
    read = replace(ev, read=(ReadWindow(f"{lead} {bare}", (lead, bare), 0.99, 0),))
    asked = Question.parse("Can rg raise its size limit?")
    quoted = [s.text for s in ExtractiveGenerator().quote_reading(asked, [read]).sentences]
    assert quoted == [lead, bare]


def test_a_window_ending_on_its_lead_in_brings_what_it_introduces() -> None:
    """Found on pendulum's docs (a dev set): the reader's best window ended on "… you should
    set the absolute keyword argument to True:" and the code block after it, which holds the
    answer, lay outside the window; the quote gave the lead-in introducing nothing. A lead-in
    that ends its window brings the unit it introduces (a list: its items), as word
    overlap's quote does, in what is shown (``with_introduced``), not in what is compared with word
    overlap's quote; so does one naming "the following" that ends on a full stop before its
    list; a window that does not end on one brings nothing more."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    before = "You can also make an inverted interval."
    lead = "To keep the interval positive, set the absolute keyword argument to True:"
    code = ">>> interval = pendulum.interval(end, start, absolute=True)"
    after = "Intervals can be iterated over with range()."
    [ev] = _evidence([f"{before}\n\n{lead}\n\n```\n{code}\n```\n\n{after}"])
    question = Question.parse("How do I keep an inverted interval positive?")
    read = replace(ev, read=(ReadWindow(f"{before} {lead}", (before, lead), 0.98, 0),))
    shown = ExtractiveGenerator().quote_reading(question, [read], with_introduced=True)
    quoted = [s.text for s in shown.sentences]
    assert quoted[-2:] == [lead, code] and after not in quoted
    items = "- `locale` in the global options\n- `theme.language`\n- `theme.locale`"
    led = "The locale a handler uses is determined by the following order of precedence:"
    [ev] = _evidence([f"{led}\n\n{items}\n\nCross-references are links."])
    read = replace(ev, read=(ReadWindow(led, (led,), 0.9, 0),))
    asked = Question.parse("In what order does a handler pick its locale?")
    shown = ExtractiveGenerator().quote_reading(asked, [read], with_introduced=True)
    quoted = [s.text for s in shown.sentences]
    assert quoted == [led, "`locale` in the global options", "`theme.language`",
                      "`theme.locale`"]
    assert [s.text for s in ExtractiveGenerator().quote_reading(asked, [read]).sentences
            ] == [led]  # what the reader read: the comparison with word overlap's quote
    found = "SQLFluff will look for the following files in order."
    later = "Later files override earlier ones."
    [ev] = _evidence([f"{found} {later}\n\n- setup.cfg\n- tox.ini\n\nSections start with "
                      "sqlfluff."])  # a lead-in without a colon, a sentence before its list
    read = replace(ev, read=(ReadWindow(found, (found,), 0.9, 0),))
    shown = ExtractiveGenerator().quote_reading(question, [read], with_introduced=True)
    assert [s.text for s in shown.sentences] == [found, later, "setup.cfg", "tox.ini"]
    plain = "The interval is positive unless the dates are inverted."
    [ev] = _evidence([f"{plain}\n\n{after}"])
    read = replace(ev, read=(ReadWindow(plain, (plain,), 0.9, 0),))
    assert [s.text for s in ExtractiveGenerator().quote_reading(question, [read],
                                                                with_introduced=True).sentences
            ] == [plain]


def test_a_quoted_reference_section_is_named_by_its_heading() -> None:
    """Found on cibuildwheel's options page (a dev set): asked whether it can install a test
    extra, the answer quoted the section's description and not its heading "test-extras", the
    option to set. A heading that is one identifier goes before its section's first quoted
    sentence; not a heading of words, nor one the question or the quote already names."""
    from abstain.generate.extractive import with_the_named_heading
    from abstain.records import Generation, Sentence

    said = "List of extras that should be installed before the tests run."
    [ev] = _evidence([f"test-extras\n\n{said}"])
    options = replace(ev, chunk=replace(ev.chunk, heading_path=("Options", "test-extras")))
    quote = Generation(sentences=(Sentence(said, (1,)),), model="extractive")
    asked = Question.parse("Can cibuildwheel install my [test] extra instead of a list?")
    named = with_the_named_heading(asked, [options], quote)
    assert [s.text for s in named.sentences] == ["test-extras", said]
    assert named.sentences[0].cites == (1,)
    for heading, question in (("Testing your wheels", asked.text),
                              ("test-extras", "What does test-extras do?")):
        plain = replace(ev, chunk=replace(ev.chunk, heading_path=("Options", heading)))
        assert with_the_named_heading(Question.parse(question), [plain], quote) == quote
    told = Generation(sentences=(Sentence(f"Set test-extras: {said}", (1,)),), model="x")
    assert with_the_named_heading(asked, [options], told) == told


def test_a_sentence_from_the_middle_of_a_long_definition_is_given_its_term() -> None:
    """A definition longer than one unit is read sentence by sentence; its "Default: …"
    quoted alone, beside another option's definition, read as that option's. The term goes
    before it, unless a sentence of the quote already names it."""
    from abstain.generate.extractive import with_the_terms
    from abstain.records import Generation, Sentence

    long = " ".join(f"Sentence {i} about the server name." for i in range(12))
    [ev] = _evidence([f"- server_name: {long} Default: waitress.invalid.\n"
                      "- ipv6: Enable or disable IPv6 (boolean)"])
    default, ipv6 = "Default: waitress.invalid.", "ipv6: Enable or disable IPv6 (boolean)"
    quote = Generation(sentences=(Sentence(default, (1,)), Sentence(ipv6, (1,))), model="x")
    assert [s.text for s in with_the_terms([ev], quote).sentences] == [
        "server_name", default, ipv6]
    first = "server_name: Sentence 0 about the server name."
    told = Generation(sentences=(Sentence(first, (1,)), Sentence(default, (1,))), model="x")
    assert with_the_terms([ev], told) == told
    both = " ".join(f"Filler {i} of the option." for i in range(12))  # a reviewer's case:
    [ev] = _evidence([f"- ipv4: Enable IPv4. {both} Default: True.\n"  # the same sentence
                      f"- ipv6: Enable IPv6. {both} Default: True."])  # ends two terms
    twice = Generation(sentences=(Sentence("ipv6: Enable IPv6.", (1,)),
                                  Sentence("Default: True.", (1,))), model="x")
    assert with_the_terms([ev], twice) == twice


def test_a_sentence_about_another_code_of_the_pattern_is_left_out() -> None:
    """Asked about E1210, the quote leaves out what E1201 means — by word overlap and from the
    reader's windows — unless the passage is the asked one's own page (ADR-0004's page says
    what superseded it); a code the question asks about too stays."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator
    from abstain.text import number_pattern

    assert number_pattern("E1210") == number_pattern("e1201") == "e#"
    assert number_pattern("ZB-117") == "zb-#" and number_pattern("Kubernetes") is None
    assert number_pattern("5.2.0") == number_pattern("v5.1.0") == "#.#.#"
    question = Question.parse("What causes error E1210 when a node joins?")
    asked = "E1210 means the node's data directory belongs to another cluster."
    other = "E1201 means the joining node cannot reach its peer."
    overlap = ExtractiveGenerator()
    [passage] = _evidence([f"{asked} {other}"])
    assert [s.text for s in overlap.generate(question, [passage]).sentences] == [asked]
    windows = tuple(ReadWindow(t, (t,), 0.9, i) for i, t in enumerate((asked, other)))
    read = ExtractiveGenerator(judge=None).generate(question, [replace(passage, read=windows)])
    assert [s.text for s in read.sentences] == [asked]
    [alone] = _evidence([other])
    assert [s.text for s in overlap.generate(question, [alone]).sentences] == [other]
    status = "Status: Superseded by ADR-0009."
    adr = replace(_evidence([status])[0],
                  document=Document("a", "default", "adr-0004.md", "ADR-0004", "h"))
    mentioned = Question.parse("Which ADR superseded ADR-0004?")
    assert [s.text for s in overlap.generate(mentioned, [adr]).sentences] == [status]
    both = Question.parse("What do E1201 and E1210 mean?")
    assert len(overlap.generate(both, [passage]).sentences) == 2


def test_a_window_opening_on_it_brings_the_sentence_before() -> None:
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    [ev] = _evidence(["Each node listens on TCP port 7400 by default. It can be changed "
                      "with the --replication-port flag on every node."])
    window = ReadWindow("It can be changed with the --replication-port flag on every node.",
                        ("It can be changed with the --replication-port flag on every node.",),
                        0.9, 1)
    generation = ExtractiveGenerator().generate(
        Question.parse("How do I change the replication port?"), [replace(ev, read=(window,))])
    assert [s.text for s in generation.sentences] == [
        "Each node listens on TCP port 7400 by default.",
        "It can be changed with the --replication-port flag on every node."]


def test_a_version_asked_is_answered_with_the_changelog_heading_over_the_entry() -> None:
    """"Which release removed --debug?" was answered "Remove the --debug flag (#1640)": the
    release it asks for stood in the heading above."""
    from abstain.generate.extractive import ExtractiveGenerator

    doc = Document("d", "default", "CHANGELOG.md", "Changelog", "h")
    text = "Removed\n- Remove the --debug flag (#1640)\n- Remove the DebugMiddleware (#1697)"
    chunk = Chunk("c0", "d", ChunkKind.CHILD, text, 0,
                  heading_path=("Changelog", "0.19.0 (October 19, 2022)", "Removed"))
    ev = Evidence(FusedHit("c0", 1.0), chunk, doc, text)
    generation = ExtractiveGenerator().generate(
        Question.parse("Which release removed the --debug flag?"), [ev])
    assert [s.text for s in generation.sentences] == [
        "0.19.0 (October 19, 2022)", "Remove the --debug flag (#1640)"]
    assert any("heading that states the version" in n for n in generation.notes)
    untyped = ExtractiveGenerator().generate(
        Question.parse("Was the --debug flag removed?"), [ev])
    assert "0.19.0 (October 19, 2022)" not in [s.text for s in untyped.sentences]


def test_the_sentence_that_goes_on_from_a_quoted_one_is_quoted_with_it() -> None:
    from abstain.generate.extractive import ExtractiveGenerator

    [ev] = _evidence(["Defaults are copied onto each new model. If you include an array as "
                      "a default value, it will be shared among all instances. Instead, "
                      "define defaults as a function. The kitchen is cleaned on Fridays."])
    generation = ExtractiveGenerator().generate(
        Question.parse("Why is an array default shared among all instances?"), [ev])
    texts = [s.text for s in generation.sentences]
    assert "Instead, define defaults as a function." in texts
    assert "The kitchen is cleaned on Fridays." not in texts


def test_a_quote_that_only_echoes_the_asked_error_goes_on_to_what_the_page_says() -> None:
    """Found on kind's known issues: the user pastes an error, and the quote was that very
    error block, found in the docs, with nothing about its cause or fix. The sentence before
    it and what follows it in its section (past the chunk's end) come with it."""
    from abstain.generate.extractive import ExtractiveGenerator

    error = ("$ kubectl edit deploy -n kube-system dashboard\nerror: SchemaError(io.k8s.api."
             "ExternalMetricStatus): invalid object doesn't have additional properties")
    chunk = f"Kubectl Version Skew\nIf you see the following error message:\n```\n{error}\n```"
    section = (f"{chunk}\n\nCheck your client version by running:\n\n```\nkubectl version\n```"
               "\n\nIf the versions differ, install a newer client version.\n\nAnother tip "
               "that is not needed.")
    [ev] = _evidence([chunk])
    ev = replace(ev, parent_text=section)
    question = Question.parse("kubectl edit gives error: SchemaError(io.k8s.api."
                              "ExternalMetricStatus): invalid object doesn't have additional "
                              "properties")
    texts = [s.text for s in ExtractiveGenerator().generate(question, [ev]).sentences]
    assert texts == ["If you see the following error message:", error,
                     "Check your client version by running:", "kubectl version",
                     "If the versions differ, install a newer client version."]
    # a quote that says more than the echo is left as it is, and an answer that restates
    # the question is no echo: it is no message the user pasted (found in review)
    [plain] = _evidence(["Tokens that start with a digit must be quoted. Quote the token."])
    said = ExtractiveGenerator().generate(
        Question.parse("Why must tokens that start with a digit be quoted?"), [plain])
    assert not any("echoed" in n for n in said.notes)
    # an example the user ran, quoted alone, is an echo too (code, no message words)
    example = ">>> import pendulum\n>>> it = pendulum.duration(years=2, months=3)"
    [ran] = _evidence([f"Durations accept years and months.\n```\n{example}\n```\nThese "
                       "make approximations of the days.\nThe kitchen is cleaned on Fridays."])
    said = ExtractiveGenerator().generate(
        Question.parse("pendulum.duration(years=2, months=3).days returns 820, how can it "
                       "know the days?"), [ran])
    texts = [s.text for s in said.sentences]
    assert texts[:3] == ["Durations accept years and months.", example,
                         "These make approximations of the days."]
    [restated] = _evidence(["Clients reconnect on failure.\nThe default timeout for the client "
                            "connection is 30 seconds.\nRetries use backoff."])
    said = ExtractiveGenerator().generate(
        Question.parse("What is the default timeout for the client connection?"), [restated])
    assert not any("echoed" in n for n in said.notes)


def test_a_unit_ending_on_a_colon_brings_what_it_introduces() -> None:
    from abstain.generate.extractive import ExtractiveGenerator

    lead = "Plugins register additional commands with the CLI like this:"
    [ev] = _evidence([f"The weather is mild.\n{lead}\n```\ndef setup(app):\n"
                      "    app.attach(greet)\n```\nThe kitchen is cleaned on Fridays."])
    generation = ExtractiveGenerator().generate(
        Question.parse("How do plugins register additional commands?"), [ev])
    texts = [s.text for s in generation.sentences]
    assert texts == [lead, "def setup(app):\n    app.attach(greet)"]


def test_a_reading_that_quotes_nothing_falls_back_visibly() -> None:
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    [ev] = _evidence(["Which port does replication use? Replication uses TCP port 7400."])
    window = ReadWindow("Which port does replication use?",
                        ("Which port does replication use?",), 0.9, 0)
    generation = ExtractiveGenerator().generate(
        Question.parse("Which port does replication use?"), [replace(ev, read=(window,))])
    assert [s.text for s in generation.sentences] == ["Replication uses TCP port 7400."]
    assert any("word overlap instead" in note for note in generation.notes)


def test_the_reader_quotes_its_own_window_only_when_it_reads_clearly_better() -> None:
    """With the reader as judge, its quote replaces word overlap's only when it reads
    READ_CHOOSE_MARGIN more probable as an answer; either way the note says which and why."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    flag = "It can be changed with the --replication-port flag."
    [ev] = _evidence([f"Replication traffic uses TCP port 7400 on every node. {flag}"])
    read = replace(ev, read=(ReadWindow(flag, (flag,), 0.9, 1),))
    question = Question.parse("Which TCP port does replication traffic use?")

    overlap_holds_it = ExtractiveGenerator(judge=KeywordReader("7400")).generate(question, [read])
    assert "7400" in " ".join(s.text for s in overlap_holds_it.sentences)
    assert any("quoted word overlap's" in note for note in overlap_holds_it.notes)

    reader_holds_it = ExtractiveGenerator(judge=KeywordReader("--replication-port")).generate(
        question, [read])
    assert [s.text for s in reader_holds_it.sentences][-1] == flag
    assert any("quoted the reader's" in note for note in reader_holds_it.notes)


def test_a_reader_window_naming_nothing_asked_is_not_quoted() -> None:
    """Found by a newcomer: "Tunnelfix" was answered with the IT support's phone number, the
    window the reader read highest, though the sentence naming Tunnelfix was in the same
    passage. A window naming nothing the question asks about (nor its passage's title or
    heading) is not quoted over word overlap's, whoever judges."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    support = "Bei Problemen hilft der IT-Support unter der Durchwahl 4711."
    client = "Für das VPN wird der Client Tunnelfix 4.2 verwendet."
    [ev] = _evidence([f"{client} {support}"])
    read = replace(ev, read=(ReadWindow(support, (support,), 0.86, 1),))
    question = Question.parse("Tunnelfix")
    for generator in (ExtractiveGenerator(), ExtractiveGenerator(judge=KeywordReader("4711")),
                      ExtractiveGenerator(judge=KeywordReader("4711"), same_pages=True)):
        quoted = generator.generate(question, [read])
        assert [s.text for s in quoted.sentences] == [client]
        assert any("name nothing the question asks about" in n for n in quoted.notes)


class _Recording:
    """A reader that records what it was given to read."""

    name = "recording"

    def __init__(self, in_context: bool) -> None:
        self.in_context = in_context
        self.read: list[str] = []

    def logits(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        self.read += list(b)
        return np.array([[1.0 if "7400" in x else -1.0, 0.0] for x in b], dtype=np.float32)


def _titled(text: str) -> list[Evidence]:
    doc = Document("d", "default", "ops.md", "Operations handbook", "h")
    chunk = Chunk("c0", "d", ChunkKind.CHILD, text, 0,
                  heading_path=("Operations handbook", "Replication"))
    return [Evidence(FusedHit("c0", 1.0), chunk, doc, text)]


def test_a_reader_trained_in_context_reads_each_window_after_its_page_and_headings() -> None:
    question = Question.parse("Which port does the operations handbook give for replication?")
    plain, framed = _Recording(False), _Recording(True)
    for reader in (plain, framed):
        reading = read_evidence(reader, question, _titled(f"{WEATHER} {PORT}"))
        assert reading is not None and reading.window == PORT  # what is quoted stays the text
    assert sorted(plain.read) == sorted([WEATHER, PORT])
    assert sorted(framed.read) == sorted(
        in_context(w, "Operations handbook", ("Operations handbook", "Replication"))
        for w in plain.read)
    assert f"Operations handbook > Replication | {PORT}" in framed.read


def test_the_reader_as_reranker_reads_each_hit_in_its_page_when_trained_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reader = OnnxReader()
    read: list[str] = []

    def recording(a: Sequence[str], b: Sequence[str], head: int) -> np.ndarray:
        read.extend(b)
        return np.array([1.0 if "7400" in x else -1.0 for x in b], dtype=np.float32)

    monkeypatch.setattr(reader, "pair_logits", recording)
    question = "Which port does the operations handbook give for replication?"
    hits = _titled(f"{WEATHER} {PORT}")
    for framed in (True, False):
        read.clear()
        monkeypatch.setattr(reader, "in_context", framed)
        assert rerank(reader, question, hits, depth=1)[0].rerank_score == pytest.approx(0.731,
                                                                                        abs=1e-3)
        page = ("Operations handbook", ("Operations handbook", "Replication"))
        assert sorted(read) == sorted(in_context(w, *page) if framed else w
                                      for w in (WEATHER, PORT))


def _with_property(model: bytes, key: str, value: str) -> bytes:
    """``model`` (a serialized ONNX ModelProto) with one more ``metadata_props`` entry (field
    14): protobuf reads a repeated field's entries wherever they stand, so appending is enough
    (what ``export.mark`` does with the onnx package, which the core install lacks)."""
    def field(number: int, payload: bytes) -> bytes:
        size, length = len(payload), b""
        while True:
            byte, size = size & 0x7F, size >> 7
            length += bytes([byte | (0x80 if size else 0)])
            if not size:
                return bytes([number << 3 | 2]) + length + payload
    return model + field(14, field(1, key.encode()) + field(2, value.encode()))


def test_the_reader_file_says_whether_its_model_reads_in_context(tmp_path: Path) -> None:
    assert OnnxReader().in_context is True  # the shipped v5 reads each window in its page
    (tmp_path / "framed.onnx").write_bytes(
        _with_property(model_file().read_bytes(), READS_KEY, IN_CONTEXT))
    (tmp_path / "other.onnx").write_bytes(
        _with_property(model_file().read_bytes(), READS_KEY, "something else"))
    assert OnnxReader(tmp_path / "framed.onnx").in_context is True
    assert OnnxReader(tmp_path / "other.onnx").in_context is False


def test_in_context_names_the_page_once_and_keeps_the_deepest_headings() -> None:
    assert in_context("w", "", ()) == "w"
    assert in_context("w", "Guide", ("guide", "Install")) == "Guide > Install | w"
    long = tuple(f"part {i}" for i in range(9))
    framed = in_context("w", "Guide", long)
    assert framed.startswith("Guide > part ") and "part 0" not in framed  # the middle ones go
    assert len(framed.split(" | ")[0].split()) == CONTEXT_WORDS
    framed = in_context("w", "A very long page title " * 4, ("Install",))
    assert len(framed.split(" | ")[0].split()) == CONTEXT_WORDS


def test_the_windows_read_are_those_that_hold_an_asked_one_letter_flag() -> None:
    """``-l`` shares no word with any window; the window that holds it is read first, not
    the options whose descriptions share the question's words."""
    options = [f"-{c}, --opt-{c}: print the name of each file in mode {c}." for c in "abcdefghij"]
    options.insert(7, "-l, --files-with-matches: suppress the normal output of matches.")
    recording = _Recording(False)
    reading = read_evidence(recording, Question.parse("what does grep -l do to file names?"),
                            _evidence(["\n".join(options)]))
    assert reading is not None and reading.windows_read == READ_WINDOWS
    assert recording.read[0] == options[7]
    unflagged = _Recording(False)
    read_evidence(unflagged, Question.parse("what does grep do to file names?"),
                  _evidence(["\n".join(options)]))
    assert options[7] not in unflagged.read


def test_the_answer_reads_on_past_the_windows_the_gate_read() -> None:
    """The gate reads a few windows, those sharing most asked words, to decide; the window
    that answers may share fewer. The answerer reads ``read_more`` more windows of the kept
    chunks (those sharing most asked words first, in one call) and adds the best of all it
    read where the quote lacks it: here the gate read the chunk's wordy window only."""
    from abstain.evidence import ReadWindow
    from abstain.generate.extractive import ExtractiveGenerator

    question = Question.parse("Which port does the replication service listen on?")
    wordy = "The replication service reads which port to listen on from the cluster file."
    also = ("Which port the replication service should listen on depends on the node's role "
            "in the cluster.")
    answer = "Out of the box, replication binds to 7400 on every node."
    [ev] = _evidence([f"{wordy} {also} {answer}"])
    read = [replace(ev, read=(ReadWindow(wordy, (wordy,), 0.4, 0),))]

    def quoted(read_more: int) -> list[str]:
        generator = ExtractiveGenerator(judge=KeywordReader("7400"), same_pages=True,
                                        add_chosen=False, read_more=read_more)
        return [s.text for s in generator.generate(question, read).sentences]

    assert answer not in quoted(0)
    assert quoted(6)[-1] == answer
    [more] = ExtractiveGenerator(judge=KeywordReader("7400"), read_more=6).read_on(question, read)
    assert [(w.position, w.probability > 0.9) for w in more.read] == [
        (0, False), (1, False), (2, True)]
