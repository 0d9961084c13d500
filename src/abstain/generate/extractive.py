"""The built-in answerer: the best-supported sentences of the top evidence, cited.

No model is called. A sentence scores the share of what the question asks about
that it holds: its content words (stem-equal, or half when only a related form
shares the first letters: "decide" / "Decision") and its identifiers (whole).
What only the chunk's title or heading holds counts half, so the sections of
"ADR-0007" answer a question about ADR-0007. Scores are weighted down by the
rank of the evidence. When the question asks for a date, a number, a name or a
version, only sentences that carry one are used (when any does).

A sentence is never an answer when it is a question, or when it adds nothing
beyond the question's own words (a document that only repeats the question
does not answer it).

Sentences are the chunk's units (:func:`abstain.text.split_units`): a list item,
definition, table row or code block is quoted whole, and never next to another
such unit of the same passage (one row's answer carries no other row's value). A
heading is quoted only when it carries the date, number or name asked for and no
sentence of the text does ("When was 5.2.0 released?" from the heading
"5.2.0 — 2025-02-11"). When a sentence holds the identifier asked about, a sentence about
another of its pattern (the same but for its numbers) is left out ("E1201 means …" for a
question about E1210, a 5.1.0 note for one about 5.2.0), unless its passage's title or
heading names the asked one (the ADR-0004 page's "Superseded by ADR-0009").

When the reader has read the evidence (:mod:`abstain.rerank.reading`), it also chooses
between two quotes: the window(s) it found answering — the best one, and a second within
:data:`READ_KEEP_WITHIN` of it, with the sentence before when the window opens on a word that
points back ("It", "This" …) — and the sentences with most words in common. Both are read as
answers in one call, and the reader's own replaces word overlap's only when it reads
:data:`READ_CHOOSE_MARGIN` more probable; the note in the audit trail says which was quoted
and why. A quoted unit that ends on a colon is followed by the unit it introduces (a code
block, a sentence), or by the list it introduces, whole up to :data:`LIST_ITEMS_QUOTED` items.

Then the quote choice (:mod:`abstain.generate.choice`, a small model fitted on users'
questions of 152 projects' documentation) scores every unit of the same evidence — from the
asked words it holds (weighed by rarity), its passage's title and headings, its chunk's
retrieval, the reader's probability for its window, its form and its neighbours — and the
unit it scores best is added to the quote when the quote lacks it (with the unit it
introduces, or the one before when it opens on a word that points back;
:meth:`ExtractiveGenerator.with_the_chosen` says when nothing is added). Word overlap and the
reader choose well where the question shares the answer's words; the choice finds the
answer that shares few ("These are prefixed with no-" after the sentence naming the flag).

Last, two things a reader of the quote needs: the heading that states the type of answer
asked when no quoted sentence does (:func:`with_the_typed_heading`: a changelog's release
above its entry; for a version or date, above each quoted entry), and the sentence right
after a quoted one that goes on from it (:func:`with_what_goes_on`: "Instead, define defaults
as a function.").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from abstain.align import (
    AskedType,
    defines,
    definition_terms,
    holds,
    names_the_page,
    stating_headings,
)
from abstain.align.types import RELEASE_TYPES, is_release_line
from abstain.asked import HOW_TO
from abstain.evidence import Evidence, ReadWindow, RowVerdict
from abstain.gate import is_curated_match
from abstain.generate.choice import (
    POINTS_BACK,
    Candidate,
    QuoteChoice,
    answers,
    asked_share,
    asked_terms,
    candidates,
    shipped_choice,
)
from abstain.mentions import mentions_in
from abstain.question import Question
from abstain.records import Check, CheckName, Generation, RefusalReason, Sentence
from abstain.rerank.defaults import asks_only_default, several_asked
from abstain.rerank.reader import sigmoid
from abstain.rerank.reading import ANSWERS_HEAD, PairLogits, as_read
from abstain.rerank.rows import Row, same_table
from abstain.rerank.windows import windowed_sentences
from abstain.text import (
    STOPWORDS,
    Unit,
    find_identifiers,
    fold,
    number_pattern,
    occurs_in,
    split_sentences,
    split_units,
    stem,
    stems,
    tokens,
)
from abstain.text.grammar import FLAG, OPTION_NAME
from abstain.text.words import STEP_VERBS

T = TypeVar("T")

RANK_DECAY = 0.15
"""Evidence n's sentences score 1 / (1 + RANK_DECAY·(n − 1)) of the same sentence at [1]."""
KEEP_WITHIN = 0.5
"""Sentences scoring under this share of the best one are left out."""
READ_KEEP_WITHIN = 0.8
"""A second read window is quoted when its probability is at least this share of the best."""
READ_WINDOWS_QUOTED = 2
QUOTED_IN_DETAIL = 300
"""Characters of the quote the ``quote_reading`` check's detail keeps (the audit trail shows
what a refused answer would have said)."""
READ_CHOOSE_MARGIN = 0.5
"""The reader's quote replaces word overlap's only when its P(answers) is higher by this much.
Chosen leave-one-domain-out for the most right answers on squad2-calibration and realdocs-dev
click / sqlite-utils (each pair of domains chose 0.4–0.6 for the third); the reader's quote
always (the margin at minus one) gave 7 and 17 fewer right answers on the two documentation
sets (docs/EVALUATION.md, "Can reading decide precision?")."""
READ_MORE = 0
"""Windows of the kept evidence read for the quote beyond those the gate read
(:meth:`ExtractiveGenerator.read_on`): none by default. Six more found three more right
answers in 670 on the `dev` and unseen projects (29 in 1,041 on the projects the reader was
trained on) for about 40 ms more at the median per answer, over the reading budget, and a
window added to 23 of 61 realdocs-dev answers with none more right (docs/EVALUATION.md,
session 31): the lever waits for a reader that reads documentation it never saw better."""
BEST_WINDOW_ADDED = 0.3
"""The reader's quote is added to a quote that lacks it when the reader's best window reads
P(answers) at least this (:meth:`ExtractiveGenerator.with_the_best_window`): the passage that
answers is quoted, whatever word overlap chose beside it. Chosen on the kept questions of the
152 ``train`` sets of ``data/userdocs`` (``bench/replay_quotes.py``; 4,461 quotes, 3,560 right
without): the reader's quote added at 0.5 gave 3,792 right, at 0.3 3,796; with a code block
that differs from a quoted one not taken for its duplicate, 3,799 and 3,803. The reader's
veto bar of the balanced preset is 0.3 too: an answer it lets through has such a window."""
LIST_ITEMS_QUOTED = 8
"""The items of a list that a quoted lead-in ("… runs three checks:") introduces, at most."""


@dataclass(frozen=True, slots=True)
class Chosen:
    """The unit the quote choice scores best, and among what."""

    unit: Candidate
    probability: float
    """Its probability among the candidates left (summing to 1 over them)."""
    candidates: int
    chunks: int
    """The chunks those candidates are from."""


class ExtractiveGenerator:
    name = "extractive"
    uses_llm = False
    can_chat = False
    can_stream = False
    can_clarify = False

    def __init__(self, *, max_sentences: int = 3, max_evidence: int = 5,
                 min_overlap: float = 0.2, judge: PairLogits | None = None,
                 same_pages: bool = False, choice: QuoteChoice | None = None,
                 add_chosen: bool = True, add_best_window: bool = True,
                 min_quote_reading: float | None = None, observing: bool = False,
                 read_more: int = READ_MORE) -> None:
        """``judge``: the reader that read the evidence, to choose between its own quote and
        word overlap's (without one, read evidence is quoted from the reader's windows).
        ``same_pages`` (the reader vetoing, the default): its quote replaces word overlap's
        only when it quotes the same pages — the right passage of the page word overlap
        chose, never another page. ``choice``: the quote choice whose best unit is added
        (the shipped one when None); ``add_chosen=False`` adds none. ``add_best_window``: the
        reader's quote is added when the quote lacks it (:meth:`with_the_best_window`).
        ``min_quote_reading`` (with a ``judge``): the answer is refused (``unanswerable``) when
        no part of its quote reads as answering at this probability (:meth:`read_of_quote`);
        ``observing``: that check is recorded but refuses nothing (``abstain eval
        --answer-all``)."""
        self.max_sentences = max_sentences
        self.max_evidence = max_evidence
        self.min_overlap = min_overlap
        self.judge = judge
        self.same_pages = same_pages
        self.choice = choice
        self.add_chosen = add_chosen
        self.add_best_window = add_best_window
        self.min_quote_reading = min_quote_reading
        self.observing = observing
        self.read_more = read_more

    def generate(self, question: Question, evidence: Sequence[Evidence]) -> Generation:
        answering_rows = [(n, w) for n, ev in enumerate(evidence[: self.max_evidence], 1)
                          for w in ev.read if w.by_columns == RowVerdict.ANSWERS]
        if answering_rows:  # a row lookup: the row that holds the asked column is the answer
            return Generation(
                sentences=tuple(Sentence(s, (n,)) for n, w in answering_rows[:READ_WINDOWS_QUOTED]
                                for s in _the_row(w.sentences)),
                model=self.name, notes=("quoted the table row(s) that answer by their "
                                        "columns",))
        stating = _stating_the_default(question, evidence[: self.max_evidence])
        if stating:  # the asked default, where its form states it, and nothing else asked
            quote = replace(self.quote_reading(question, stating, with_introduced=True), notes=(
                "quoted the window(s) that state the default the question asks for",))
        else:
            quote = self.quote_words_and_reading(question, evidence)
            if self.add_chosen:
                quote = self.with_the_chosen(question, evidence, quote)
            quote = self.read_back(question, evidence, quote)
            if self.add_best_window and quote.refusal is None:
                quote = self.with_the_best_window(question, evidence, quote)
                more = self.read_on(question, evidence)
                if more is not None:  # what the gate's windows added stays quoted
                    quote = self.with_the_best_window(question, more, quote, read_on=True)
        if quote.refusal is None:  # what a reader needs around the quote
            quote = with_the_typed_heading(question, evidence, quote)
            quote = with_the_named_heading(question, evidence, quote, asked=bool(stating))
            quote = with_the_terms(evidence, quote)
            quote = with_what_goes_on(quote, evidence)
            quote = past_the_echo(question, quote, evidence)
        return quote

    def with_the_best_window(self, question: Question, evidence: Sequence[Evidence],
                             quote: Generation, *, read_on: bool = False) -> Generation:
        """``quote`` with the reader's quote (:meth:`quote_reading`: its answering windows, with
        what they need to be read) after it, when the reader's best window of the first
        ``max_evidence`` chunks reads P(answers) ≥ :data:`BEST_WINDOW_ADDED` and the quote
        lacks its sentences: the passage that answers is quoted even where word overlap and
        the quote choice chose another passage, of the same page or another. Only what a
        reader's quote may be (it names something asked, its headings that state nothing
        left out) and only its sentences the quote lacks, none a near-duplicate of a quoted
        one (a code block only when it is the same). Added after the ``quote_reading`` check
        has read the quote without it (the window would pass that check by itself; what the
        check asks is whether what word overlap and the quote choice chose reads as
        answering). What is added goes after the quote, but a lead-in ("… run the following
        command:") goes right before the quoted sentence it introduces. Nothing is added to
        an empty quote."""
        read = [w.probability for ev in evidence[: self.max_evidence] for w in ev.read]
        if not quote.sentences or not read or max(read) < BEST_WINDOW_ADDED:
            return quote
        reader = self.quote_reading(question, evidence, with_introduced=True)
        if not reader.sentences or not _names_the_asked(question, reader, evidence):
            return quote
        quoted = [s.text for s in quote.sentences]
        pages = {s.cites[0] for s in reader.sentences}
        code = {u.text for n in pages for u in split_units(evidence[n - 1].text)
                if u.code}  # an example that differs from a quoted one: the difference answers
        said = _without_headings(question, reader, evidence).sentences
        new = [s for s in said if s.text not in quoted
               and (s.text in code or not any(_redundant(s.text, q) for q in quoted))]
        if not new:
            return quote
        sentences = list(quote.sentences)
        for at, sentence in enumerate(said):
            if sentence not in new:
                continue
            introduced = said[at + 1].text if at + 1 < len(said) else None
            texts = [s.text for s in sentences]
            if sentence.text.rstrip().endswith(":") and introduced in texts:
                # a lead-in goes right before the quoted sentence it introduces
                sentences.insert(texts.index(introduced), sentence)
            else:
                sentences.append(sentence)
        return replace(quote, sentences=tuple(sentences), notes=(
            *quote.notes, f"added the reader's answering window(s) (best P(answers) "
            f"{max(read):.2f}{', reading on past the gate' if read_on else ''}), which the "
            "quote lacked"))

    def read_on(self, question: Question, evidence: Sequence[Evidence]
                ) -> list[Evidence] | None:
        """``evidence`` with ``read_more`` more of the first ``max_evidence`` chunks' windows
        read, those sharing most asked words first (the gate read its few of the first three
        chunks to decide; the passage that answers may be another window of the evidence):
        what :meth:`with_the_best_window` chooses from. Only where the gate read (a ``judge``,
        read windows); one batched call. None when nothing more was read."""
        if self.judge is None or self.read_more <= 0 or not any(
                ev.read for ev in evidence[: self.max_evidence]):
            return None
        asked = set(question.stems)
        unread: list[tuple[int, int, int, str, tuple[str, ...]]] = []
        for n, ev in enumerate(evidence[: self.max_evidence]):
            done = {w.position for w in ev.read}
            for position, (text, sentences) in enumerate(windowed_sentences(ev.text)):
                if position not in done:
                    shared = len(asked & set(stems(text)))
                    unread.append((-shared, n, position, text, sentences))
        chosen = sorted(unread)[: self.read_more]
        if not chosen:
            return None
        p = self._reads(question, [(text, n + 1) for _, n, _, text, _ in chosen], evidence)
        more: dict[int, list[ReadWindow]] = {}
        for (_, n, position, text, sentences), probability in zip(chosen, p, strict=True):
            more.setdefault(n, []).append(ReadWindow(text, sentences, round(probability, 4),
                                                     position))
        return [replace(ev, read=tuple(sorted((*ev.read, *more.get(n, ())),
                                              key=lambda w: w.position)))
                if n in more else ev for n, ev in enumerate(evidence)]

    def read_back(self, question: Question, evidence: Sequence[Evidence],
                  quote: Generation) -> Generation:
        """``quote`` with its ``quote_reading`` check, refused when the check fails: the
        passage that answers is the passage quoted, so a quote no part of which the reader
        reads as answering is no answer, however many asked words it shares. Not for a
        curated page that asks the question itself (the gate's reading exempts it too)."""
        if (self.judge is None or self.min_quote_reading is None or not quote.sentences
                or any(is_curated_match(question.text, evidence[n - 1])
                       for s in quote.sentences for n in s.cites[:1])):
            return quote
        p = round(self.read_of_quote(question, evidence, quote), 4)
        passed = p >= self.min_quote_reading
        said = quote.text
        check = Check(CheckName.QUOTE_READING, passed, p, self.min_quote_reading,
                      "the reader's best P(answers) of the quote of one page, or of a quoted "
                      "sentence alone, each read in its page's context; the quote: "
                      + (said if len(said) <= QUOTED_IN_DETAIL
                         else said[:QUOTED_IN_DETAIL].rstrip() + " …"),
                      RefusalReason.UNANSWERABLE)
        refused = None if passed or self.observing else RefusalReason.UNANSWERABLE
        return replace(quote, checks=(*quote.checks, check), refusal=refused)

    def read_of_quote(self, question: Question, evidence: Sequence[Evidence],
                      quote: Generation) -> float:
        """The reader's best P(answers) of the quote, each part read in its page's context:
        first the sentences quoted from each page together (one pair per page), then, only
        when none of those reaches ``min_quote_reading`` (always when ``observing``, so that a
        record's value is the best of all reads and replays any bar), each sentence of a page
        quoting several alone. One batched call each; the second decides the same as reading
        all."""
        assert self.judge is not None
        by_page: dict[int, list[str]] = {}
        for sentence in quote.sentences:
            by_page.setdefault(sentence.cites[0] if sentence.cites else 1, []).append(
                sentence.text)
        best = max(self._reads(question, [(" ".join(said), n) for n, said in by_page.items()],
                               evidence))
        alone = [(text, n) for n, said in by_page.items() if len(said) > 1 for text in said]
        if alone and (self.observing or best < (self.min_quote_reading or 0.0)):
            best = max(best, *self._reads(question, alone, evidence))
        return best

    def _reads(self, question: Question, parts: Sequence[tuple[str, int]],
               evidence: Sequence[Evidence]) -> list[float]:
        """The judge's P(answers) of each (text, evidence number), each read in its page's
        context (:func:`~abstain.rerank.reading.as_read`), in one batched call."""
        assert self.judge is not None
        texts = [as_read(self.judge, text, evidence[n - 1]) for text, n in parts]
        logits = self.judge.logits([question.text] * len(texts), texts)
        return [sigmoid(float(x)) for x in logits[:, ANSWERS_HEAD]]

    def with_the_chosen(self, question: Question, evidence: Sequence[Evidence],
                        quote: Generation) -> Generation:
        """``quote`` with the unit the quote choice scores best (:meth:`chosen_unit`) when it
        lacks it: with the unit before it when it opens on a word pointing back ("These are
        prefixed with no-"), with the unit it introduces when it ends on a colon (a code
        block or a sentence). The unit goes right after its quoted antecedent, or right
        before the quoted unit it introduces, else after the quote. Nothing is added to an
        empty quote (no answer is made of it); nor when a unit to add is a near-duplicate of
        a quoted sentence, a list item or table row of a document the quote already quotes
        an item or row of (its values are not this answer's), or carries the type of answer
        asked where the quote already does (a second port beside the asked one); nor a unit
        pointing back to nothing, to a lone list item or row, or introducing a list or
        nothing. With the reader vetoing (``same_pages``), only from the pages the quote
        cites."""
        if not quote.sentences:
            return quote
        pages = _pages(quote, evidence) if self.same_pages else None
        chosen = self.chosen_unit(question, evidence, pages)
        if chosen is None:
            return quote
        unit = chosen.unit
        units = split_units(evidence[unit.cites - 1].text)
        quoted = [s.text for s in quote.sentences]
        if unit.text in quoted:
            return quote
        added = [unit.position]
        said = tokens(unit.text)
        if said and said[0] in POINTS_BACK:
            if unit.position == 0 or _item(units[unit.position - 1]):
                return quote  # it points back to nothing here, or to one item of a list
            added.insert(0, unit.position - 1)
        if unit.text.rstrip().endswith(":"):
            after = unit.position + 1
            if after >= len(units) or _item(units[after]):
                return quote  # a lead-in of nothing here, or of a list: word overlap's to quote
            added.append(after)
        new = [units[at].text for at in added if units[at].text not in quoted]
        if any(_redundant(text, q) for text in new for q in quoted):
            return quote
        units_of = [split_units(ev.text) for ev in evidence[: self.max_evidence]]
        if (evidence[unit.cites - 1].document.id in _documents_of_items(quote, units_of, evidence)
                and any(_item(units[at]) for at in added)):
            return quote
        typed_as = AskedType.of(question)
        if typed_as is not None and any(typed_as.carried_by(q) for q in quoted) and any(
                typed_as.carried_by(text) for text in new):
            return quote
        at = len(quote.sentences)
        if added[0] != unit.position and units[added[0]].text in quoted:
            at = quoted.index(units[added[0]].text) + 1
        elif added[-1] != unit.position and units[added[-1]].text in quoted:
            at = quoted.index(units[added[-1]].text)
        sentences = list(quote.sentences)
        sentences[at:at] = [Sentence(text, (unit.cites,)) for text in new]
        return replace(quote, sentences=tuple(sentences), notes=(*quote.notes, (
            f"added the unit the quote choice scores best (P {chosen.probability:.2f} among "
            f"{_counted(chosen.candidates, 'candidate')} of "
            f"{_counted(chosen.chunks, 'chunk')}), which the quote lacked")))

    def chosen_unit(self, question: Question, evidence: Sequence[Evidence],
                    pages: set[str] | None = None) -> Chosen | None:
        """The unit of the first ``max_evidence`` chunks (of ``pages`` when given) the quote
        choice scores best, with its probability among the candidates left: of those whose
        own text holds a word or identifier asked (not the support line's phone number
        beside "Tunnelfix 4.2", nor an ADR's "Date:" line that only its title names),
        carrying the asked type of answer (when any does), about the asked identifier
        (:func:`_about_the_asked`) and no heading (unless only headings are left); from a
        curated page whose title asks the question (an editor's answer to it) when there is
        one. None when no unit is left."""
        found = [c for c in candidates(question, evidence[: self.max_evidence])
                 if pages is None or evidence[c.cites - 1].document.id in pages]
        chance = (self.choice or shipped_choice()).probabilities(found)
        scored = [(float(p), c) for p, c in zip(chance, found, strict=True)
                  if c.own_overlap > 0]
        editors = [s for s in scored if is_curated_match(question.text, evidence[s[1].cites - 1])]
        scored = editors or scored
        for keep in (lambda c: c.typed, lambda c: not c.heading):
            scored = [s for s in scored if keep(s[1])] or scored
        scored = _about_the_asked(question, evidence, scored, lambda s: (s[1].cites, s[1].text))
        scored = _defining_the_asked(question, evidence, scored,
                                     lambda s: (s[1].cites, s[1].text))
        if not scored:
            return None
        total = sum(p for p, _ in scored)
        p, best = max(scored, key=lambda s: s[0])
        return Chosen(best, p / total if total > 0 else 0.0, len(scored),
                      len({c.cites for _, c in scored}))

    def quote_words_and_reading(self, question: Question, evidence: Sequence[Evidence]
                                ) -> Generation:
        """Word overlap's quote, or the reader's answering windows where it read the evidence
        and chose them (``judge``, ``same_pages``)."""
        if not any(ev.read for ev in evidence[: self.max_evidence]):
            return self.quote_overlap(question, evidence)
        read = self.quote_reading(question, evidence)
        if not read.sentences:
            return replace(self.quote_overlap(question, evidence), notes=(
                "the reader's answering windows held no sentence that answers; quoted by word "
                "overlap instead",))
        shown = _without_headings(question, read, evidence)  # read and judged with them
        named = _names_the_asked(question, read, evidence)
        if self.judge is None and named:
            return shown
        overlap = self.quote_overlap(question, evidence)
        if not named and overlap.sentences:
            return replace(overlap, notes=(
                "the reader's answering windows name nothing the question asks about (nor "
                "does their passage's title or heading): quoted word overlap's",))
        if self.judge is None:
            return shown
        if self.same_pages and _pages(read, evidence) != _pages(overlap, evidence):
            # the reader vetoing: the answer stays the unread pipeline's unless the reader
            # finds the passage on the very pages word overlap quotes
            return replace(overlap, notes=((
                "the reader's answering windows are on other pages than word overlap's quote: "
                "quoted word overlap's") if overlap.sentences else (
                "word overlap found no sentence to quote, and the reader's answering windows "
                "are quoted only on the pages it quotes: nothing quoted"),))
        if not overlap.sentences or overlap.sentences == read.sentences:
            return shown
        p_read, p_overlap = self._reads(question, [(g.text, g.sentences[0].cites[0])
                                                   for g in (read, overlap)], evidence)
        if p_read > p_overlap + READ_CHOOSE_MARGIN:
            return replace(shown, notes=(*read.notes, (
                f"the reader's quote reads {p_read:.2f} as an answer, word overlap's "
                f"{p_overlap:.2f}: quoted the reader's"),))
        return replace(overlap, notes=(
            f"word overlap's quote reads {p_overlap:.2f} as an answer, the reader's windows "
            f"{p_read:.2f} (not {READ_CHOOSE_MARGIN} higher): quoted word overlap's",))

    def quote_overlap(self, question: Question, evidence: Sequence[Evidence]) -> Generation:
        """The sentences that hold most of what the question asks about, cited."""
        identifiers = question.identifiers
        terms = asked_terms(question)
        asked = set(question.stems)
        typed_as = AskedType.of(question)
        scored: list[tuple[float, bool, int, int, str, bool]] = []
        from_headings: set[tuple[int, int]] = set()
        units_of = [split_units(ev.text) for ev in evidence[: self.max_evidence]]
        flagged = bool(question.letter_flags) and any(
            _defines_an_asked_flag(question, u) for units in units_of for u in units)
        for n, (ev, units) in enumerate(zip(evidence, units_of, strict=False), start=1):
            label = ev.label
            label_stems = set(stems(label))
            headings = {*ev.chunk.heading_path, ev.document.title}
            for position, unit in enumerate(units):
                sentence = unit.text
                if not answers(sentence, asked):
                    continue
                overlap = asked_share(terms, identifiers, sentence, label, label_stems)
                if flagged:  # the asked flag counts as one more asked term, held where defined
                    wanted = len(terms) + len(identifiers)
                    overlap = (overlap * wanted + _defines_an_asked_flag(question, unit)) / (
                        wanted + 1)
                if overlap < self.min_overlap:
                    continue
                typed = typed_as is not None and typed_as.carried_by(sentence)
                if sentence in headings:
                    if not typed:
                        continue
                    from_headings.add((n, position))
                scored.append((overlap / (1 + RANK_DECAY * (n - 1)), typed, n, position,
                               sentence, unit.whole))
        if any(s[1] for s in scored):
            scored = [s for s in scored if s[1]]
        scored = _about_the_asked(question, evidence, scored, lambda s: (s[2], s[4]))
        scored = _defining_the_asked(question, evidence, scored, lambda s: (s[2], s[4]))
        if any((s[2], s[3]) not in from_headings for s in scored):
            scored = [s for s in scored if (s[2], s[3]) not in from_headings]
        best: list[tuple[float, bool, int, int, str, bool]] = []
        for candidate in sorted(scored, key=lambda s: -s[0]):
            if len(best) == self.max_sentences or (
                    best and candidate[0] < KEEP_WITHIN * best[0][0]):
                break
            if candidate[5] and any(kept[5] and kept[2] == candidate[2] for kept in best) and (
                    not _another_asked_flag(question, candidate[4], [k[4] for k in best])):
                continue  # a neighbouring row / item: its values are not this answer's
            if candidate[5] and any(_another_row(candidate, kept, evidence) for kept in best):
                continue  # a row of the same table, found elsewhere, that matches less
            if not any(_redundant(candidate[4], kept[4]) for kept in best) or (
                    _another_asked_flag(question, candidate[4], [k[4] for k in best])):
                best.append(candidate)  # -l's definition reads as -L's, and both are asked
        chosen = sorted(best, key=lambda s: (s[2], s[3]))
        quoted_units = [(s[2], s[3], s[4]) for s in chosen]
        if HOW_TO.search(question.asked):
            headed = [_headings(ev) for ev in evidence[: self.max_evidence]]
            quoted_units = _whole_procedures(quoted_units, units_of, headed)
        return Generation(
            sentences=tuple(Sentence(text, (n,)) for n, _, text in
                            _with_what_they_introduce(quoted_units, units_of)),
            model=self.name,
        )

    def quote_reading(self, question: Question, evidence: Sequence[Evidence], *,
                      with_introduced: bool = False) -> Generation:
        """The window(s) the reader found answering, with what they need to be read; with
        ``with_introduced``, also what a lead-in ending its window introduces (a code block, a list:
        :func:`_with_what_they_introduce`), which the quote shows but which is not what the
        reader read (read with a long code block, "… use the context manager syntax:" fell
        from 1.00 to 0.24 against word overlap's quote)."""
        read = [(w.probability, n, w) for n, ev in enumerate(evidence[: self.max_evidence], 1)
                for w in ev.read]
        read = _defining_the_asked(question, evidence, read,  # the reader reads -L as -l
                                   lambda r: (r[1], r[2].sentences[0] if r[2].sentences
                                              else r[2].text))
        if not read:  # every window read defines another flag than the one asked
            return Generation(sentences=(), model=self.name)
        best = max(p for p, _, _ in read)
        kept = sorted((r for r in read if r[0] >= READ_KEEP_WITHIN * best),
                      key=lambda r: -r[0])[:READ_WINDOWS_QUOTED]
        asked = set(question.stems)
        chosen: list[tuple[int, int, str]] = []
        for _, n, window in sorted(kept, key=lambda r: (r[1], r[2].position)):
            sentences = split_sentences(evidence[n - 1].text)
            introduced = False  # the sentence after a kept lead-in ("… the limit:") is kept
            for text in _with_what_it_points_back_to(window.sentences, sentences):
                position = sentences.index(text) if text in sentences else len(sentences)
                needed = text not in window.sentences or answers(text, asked) or introduced
                if needed and all(text != c[2] for c in chosen):
                    chosen.append((n, position, text))
                introduced = needed and text.rstrip().endswith(":")
        chosen = _about_the_asked(question, evidence, chosen, lambda c: (c[0], c[2]))
        chosen = _one_unit_each(question, evidence, chosen)
        chosen.sort(key=lambda c: (c[0], c[1]))
        if with_introduced:  # a lead-in ending its window ("… set absolute to True:"): its block
            chosen = _with_what_they_introduce(
                chosen, [split_units(ev.text) for ev in evidence[: self.max_evidence]])
        return Generation(sentences=tuple(Sentence(text, (n,)) for n, _, text in chosen),
                          model=self.name,
                          notes=(f"quoted the reader's answering window(s), best "
                                 f"{best:.2f}",) if chosen else ())


def with_the_typed_heading(question: Question, evidence: Sequence[Evidence],
                           quote: Generation) -> Generation:
    """``quote`` with the heading that states the type of answer asked, when no quoted
    sentence does: a changelog's "0.19.0 (October 19, 2022)" before "Remove the --debug flag"
    for "which release removed --debug?". The nearest such heading
    (:func:`~abstain.align.stating_headings`) of the first quoted sentence's chunk that has
    one, placed before that sentence. For a version or a date, each quoted chunk whose
    sentences state none and that the quote does not already show under its own release
    line gets that line too: two changelog entries quoted for "which release fixed
    week_of_month?" each say which release they are from."""
    asked = AskedType.of(question)
    if asked is None:
        return quote
    sentences = list(quote.sentences)
    added = 0
    if not any(asked.carried_by(s.text) for s in sentences):
        for at, sentence in enumerate(sentences):
            if not sentence.cites:
                continue
            heading = next(iter(stating_headings(evidence[sentence.cites[0] - 1], asked)), None)
            if heading is not None:
                sentences.insert(at, Sentence(heading, sentence.cites[:1]))
                added += 1
                break
    if asked.expected in RELEASE_TYPES:
        for n in dict.fromkeys(s.cites[0] for s in sentences if s.cites):
            own = [s for s in sentences if s.cites[:1] == (n,)]
            if not 1 <= n <= len(evidence) or any(asked.carried_by(s.text) for s in own):
                continue
            heading = next((h for h in stating_headings(evidence[n - 1], asked)
                            if is_release_line(h)), None)
            at = sentences.index(own[0])
            above = next((s.text for s in reversed(sentences[:at]) if is_release_line(s.text)),
                         None)
            if heading is not None and heading != above:  # not already under its own
                sentences.insert(at, Sentence(heading, (n,)))
                added += 1
    if not added:
        return quote
    return replace(quote, sentences=tuple(sentences), notes=(
        *quote.notes, f"added the heading that states the {asked.expected.value} asked, "
        f"which the quote lacked" + (f" ({added} passages)" if added > 1 else "")))


def with_the_named_heading(question: Question, evidence: Sequence[Evidence],
                           quote: Generation, *, asked: bool = False) -> Generation:
    """``quote`` with the heading of each quoted section whose heading is one identifier that
    neither the quote of that section nor the question names, placed before the section's
    first quoted sentence: a reference page's option described without its name ("Install
    your wheel for testing using extras_require" under "test-extras", asked "can cibuildwheel
    install my [test] extra instead?") tells the user what to set only with it. ``asked``:
    also a heading the question names (a stated default's field, "Default | error", says
    whose only with its heading, "log-level")."""
    sentences = list(quote.sentences)
    named: list[str] = []
    for n in dict.fromkeys(s.cites[0] for s in quote.sentences if s.cites):
        heading = evidence[n - 1].chunk.section if n <= len(evidence) else ""
        if (not heading or heading in named or not (find_identifiers(heading) == [heading]
                                                    or OPTION_NAME.fullmatch(heading))
                or (not asked and occurs_in(heading, question.text))
                or any(occurs_in(heading, s.text) for s in sentences if s.cites[:1] == (n,))):
            continue
        first = next(at for at, s in enumerate(sentences) if s.cites[:1] == (n,))
        sentences.insert(first, Sentence(heading, (n,)))
        named.append(heading)
    if not named:
        return quote
    return replace(quote, sentences=tuple(sentences), notes=(
        *quote.notes, "added the heading(s) naming what the quote describes: "
        + ", ".join(named)))


def with_the_terms(evidence: Sequence[Evidence], quote: Generation) -> Generation:
    """``quote`` with the term of each quoted sentence from the middle of a long definition
    (:attr:`~abstain.text.Unit.term`) that no earlier quoted sentence of its chunk names,
    placed before it: waitress's "Default: waitress.invalid" is ``server_name``'s, and quoted
    above "ipv6: Enable or disable IPv6" it read as ipv6's default."""
    sentences: list[Sentence] = []
    named: list[str] = []
    for sentence in quote.sentences:
        n = sentence.cites[0] if sentence.cites else 0
        if 0 < n <= len(evidence):
            terms = {u.term for u in split_units(evidence[n - 1].text) if u.text == sentence.text}
            term = next(iter(terms)) if len(terms) == 1 else ""  # "Default: True." of two: none
            if term and not any(occurs_in(term, s.text) for s in sentences
                                if s.cites[:1] == (n,)):
                sentences.append(Sentence(term, (n,)))
                named.append(term)
        sentences.append(sentence)
    if not named:
        return quote
    return replace(quote, sentences=tuple(sentences), notes=(
        *quote.notes, "added the term(s) whose definition a quoted sentence is from: "
        + ", ".join(named)))


GOES_ON = POINTS_BACK | {"instead", "so", "thus", "therefore", "hence", "but", "rather",
                         "alternatively"}
"""A sentence opening on one of these goes on from the one before it ("Instead, define
defaults as a function."). Chosen on the kept questions of the 152 ``train`` sets of
``data/userdocs`` (``bench/replay_quotes.py``; 4,461 quotes, 3,803 right without): with the
words that point back (:data:`~abstain.generate.choice.POINTS_BACK`) alone 3,811 right, with
these connectives 3,816 (median answer 355 → 374 characters); any next sentence of running
text gave 3,855, at 481 characters — a longer quote, not a better chosen one."""


def with_what_goes_on(quote: Generation, evidence: Sequence[Evidence]) -> Generation:
    """``quote`` with the sentence after a quoted one when it goes on from it
    (:data:`GOES_ON`) and is no near-duplicate of a quoted one: "… it will be shared among
    all instances." is half an answer without "Instead, define defaults as a function.". Only
    after a quoted sentence of running text (no code block, list item or table row), and only
    running text (nor a heading); one sentence after each, not a chain."""
    units_of: dict[int, Sequence[Unit]] = {}
    quoted = [s.text for s in quote.sentences]
    out: list[Sentence] = []
    for sentence in quote.sentences:
        out.append(sentence)
        if not sentence.cites:
            continue
        n = sentence.cites[0]
        units = units_of.setdefault(n, split_units(evidence[n - 1].text))
        at = _position(sentence.text, units)
        if at + 1 >= len(units) or units[at].code or _item(units[at]):
            continue
        after = units[at + 1]
        said = tokens(after.text)
        if (said and said[0] in GOES_ON and not after.code and not _item(after)
                and after.text not in _headings(evidence[n - 1])
                and not any(_redundant(after.text, q) for q in quoted)):
            out.append(Sentence(after.text, (n,)))
            quoted.append(after.text)
    if len(out) == len(quote.sentences):
        return quote
    return replace(quote, sentences=tuple(out), notes=(
        *quote.notes, "added the sentence after a quoted one that goes on from it"))


ECHO_SHARE = 0.6
"""A quoted unit of at least :data:`ECHO_WORDS` words this share of which the question holds
echoes it: the error message or command the user pasted, found in the docs."""
ECHO_WORDS = 6
ECHO_GOES_ON = 2
"""Past an echo the quote goes on for this many sentences of running text (and the code
blocks among them)."""


_MESSAGE = re.compile(r"\b(?:error|errors|warning|exception|traceback|fatal|panic|failed|fails"
                      r"|failure|denied|refused|cannot|unable|invalid|not\s+found)\b",
                      re.IGNORECASE)
"""What a message the user pastes says: a quoted sentence or code block that holds none of
these ("The default timeout for the connection is 30 seconds.") is no echo, however many of
the question's words it repeats."""


def _echoes(unit: Unit, asked: set[str]) -> bool:
    """Whether ``unit`` is the question's own error message or command: code or a message
    (:data:`_MESSAGE`) whose content words, numbers aside, are mostly the question's."""
    if not (unit.code or _MESSAGE.search(unit.text)):
        return False
    said = [w for w in tokens(unit.text) if not w.isdigit() and w not in STOPWORDS]
    return len(said) >= ECHO_WORDS and sum(w in asked for w in said) >= ECHO_SHARE * len(said)


def past_the_echo(question: Question, quote: Generation, evidence: Sequence[Evidence]
                  ) -> Generation:
    """``quote`` going on past what only echoes the question: where everything quoted of a
    page is the question's own error message or command (:data:`ECHO_SHARE`) or the lead-in
    to it ("kind may fail with the following error:"), the user has it already; what
    answers is what the page says around it — the cause, the fix — so the sentence before
    the first quoted unit goes before it and the :data:`ECHO_GOES_ON` sentences after the
    last echo follow it, with the code blocks among them, up to the next heading; read in
    the chunk's section, as a chunk may end on the echo."""
    asked = set(tokens(question.text))
    by_page: dict[int, list[Sentence]] = {}
    for sentence in quote.sentences:
        if sentence.cites:
            by_page.setdefault(sentence.cites[0], []).append(sentence)
    out = list(quote.sentences)
    added: list[str] = []
    for n, quoted in by_page.items():
        ev = evidence[n - 1]
        units = split_units(ev.text)
        echoed = [at for at, u in enumerate(units)
                  if _echoes(u, asked) and any(s.text == u.text for s in quoted)]
        echoes = {units[at].text for at in echoed}
        section = split_units(ev.parent_text)  # the chunk may end on the echo
        if echoed and units[echoed[-1]] in section:
            at = section.index(units[echoed[-1]])
            units, echoed = section, [at]
        headings = _headings(ev)
        if not echoed or not all(s.text in echoes or s.text.rstrip().endswith(":")
                                 or s.text in headings for s in quoted):
            continue
        first = min(at for at, u in enumerate(units) if any(s.text == u.text for s in quoted))
        before = units[first - 1] if first > 0 else None
        if (before is not None and not before.code and before.text not in headings
                and not any(s.text == before.text for s in out)):  # what the message means
            out.insert(out.index(quoted[0]), Sentence(before.text, (n,)))
            added.append(before.text)
        going_on: list[Sentence] = []
        prose = 0
        for unit in units[echoed[-1] + 1:]:
            if unit.text in headings or prose >= ECHO_GOES_ON:
                break
            if _echoes(unit, asked) or any(s.text == unit.text for s in out):
                continue
            going_on.append(Sentence(unit.text, (n,)))
            prose += not unit.code
        if going_on:
            last = max(at for at, s in enumerate(out) if s in quoted)
            out[last + 1:last + 1] = going_on
            added.extend(s.text for s in going_on)
    if not added:
        return quote
    return replace(quote, sentences=tuple(out), notes=(
        *quote.notes, "the quote echoed the question's own message: added what the page "
        "says around it"))


def _without_headings(question: Question, read: Generation, evidence: Sequence[Evidence]
                      ) -> Generation:
    """The reader's quote as the answer gives it: without a window's heading that states
    nothing (:func:`_states`; "Printing rules" before "Colour printing is charged … 8p per
    page."). It is read and judged with it, as the reader read the window."""
    typed_as = AskedType.of(question)
    kept = tuple(s for s in read.sentences
                 if not s.cites or _states(s.text, typed_as)
                 or s.text not in _headings(evidence[s.cites[0] - 1]))
    return replace(read, sentences=kept) if kept else read


def _headings(evidence: Evidence) -> set[str]:
    """The chunk's headings and its page's title: what an answer quotes only if it states
    something."""
    return {*evidence.chunk.heading_path, evidence.document.title}


def _states(heading: str, typed_as: AskedType | None) -> bool:
    """Whether a heading states something an answer may need: the type of answer asked for,
    a number or an identifier ("3.18.0 (2022-09-15)" over a changelog's entries, "ADR-0007:
    Use PostgreSQL"), not only words ("Printing rules", "Steps")."""
    return ((typed_as is not None and typed_as.carried_by(heading))
            or any(ch.isdigit() for ch in heading) or bool(find_identifiers(heading)))


def _position(text: str, units: Sequence[Unit]) -> int:
    """Where ``text`` stands among its passage's units (after them when it is none)."""
    return next((at for at, u in enumerate(units) if u.text == text), len(units))


def _stating_the_default(question: Question, evidence: Sequence[Evidence]) -> list[Evidence]:
    """For a question that asks only a default, ``evidence`` with only its read windows that
    state it (:mod:`abstain.rerank.defaults`); [] when none does, or when they do not name
    every name asked together (a question that asks more is quoted as any other, the window that
    states the default added as the best read)."""
    stating = [w.text for ev in evidence for w in ev.read if w.states_default]
    if not stating or not asks_only_default(question):
        return []
    if not all(any(n.pattern.search(text) for text in stating) for n in several_asked(question)):
        return []  # "the defaults of MAX_TEXT_CHUNK and MAX_TEXT_MEMORY": one stated
    return [replace(ev, read=tuple(w for w in ev.read if w.states_default)) for ev in evidence]


def _the_row(sentences: tuple[str, ...]) -> tuple[str, ...]:
    """The sentences of a row's window that are the row: not a heading the window joined
    before it ("Core options" above "- Name: max_workers; …"); all when none alone is."""
    rows = tuple(s for s in sentences if Row.parse(s) is not None)
    return rows or sentences


def quotes_agree(question: Question, evidence: Sequence[Evidence]) -> float:
    """1.0 when the reader's answering windows and word overlap's quote share a sentence, 0.0
    when they do not or the reader did not read: two choosers agreeing, a signal of a right
    answer measured for the answer confidence (docs/EVALUATION.md, "A lead …")."""
    quoter = ExtractiveGenerator()
    if not any(ev.read for ev in evidence[: quoter.max_evidence]):
        return 0.0
    read = {s.text for s in quoter.quote_reading(question, evidence).sentences}
    overlap = {s.text for s in quoter.quote_overlap(question, evidence).sentences}
    return float(bool(read & overlap))


def _names_the_asked(question: Question, generation: Generation,
                     evidence: Sequence[Evidence]) -> bool:
    """Whether a quote, or the title or a heading of a passage it cites, holds a word the
    question asks about (:func:`~abstain.generate.choice.asked_terms`, or an identifier's):
    a window the reader reads as answering that names none of it answers something else
    ("Tunnelfix" asked, the IT support's phone number quoted)."""
    wanted = set(asked_terms(question)) | {stem(w) for m in question.identifiers
                                            for w in m.words}
    held = {t for s in generation.sentences for t in stems(s.text)}
    held |= {t for s in generation.sentences for n in s.cites
             for t in stems(evidence[n - 1].label)}
    return bool(wanted & held)


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _documents_of_items(quote: Generation, units_of: Sequence[Sequence[Unit]],
                        evidence: Sequence[Evidence]) -> set[str]:
    """The documents of which ``quote`` quotes a list item or table row."""
    out = set()
    for s in quote.sentences:
        n = s.cites[0] if s.cites else 0
        if 0 < n <= len(units_of):
            at = _position(s.text, units_of[n - 1])
            if at < len(units_of[n - 1]) and _item(units_of[n - 1][at]):
                out.add(evidence[n - 1].document.id)
    return out


def _pages(generation: Generation, evidence: Sequence[Evidence]) -> set[str]:
    """The documents a quote cites."""
    return {evidence[n - 1].document.id for s in generation.sentences for n in s.cites}


def _about_the_asked(question: Question, evidence: Sequence[Evidence], candidates: list[T],
                     where: Callable[[T], tuple[int, str]]) -> list[T]:
    """``candidates`` without those about another identifier of an asked one's pattern, when
    any candidate holds an asked identifier; ``where`` gives a candidate's evidence number and
    text. One is about another when neither it nor its passage's title or headings hold an
    asked identifier and it names one of the same pattern (:func:`abstain.text.number_pattern`:
    the same but for its numbers) that the question does not name."""
    asked = question.identifiers
    patterns = {number_pattern(m.text) for m in asked} - {None}
    if not patterns or not any(any(holds(m, where(c)[1]) for m in asked) for c in candidates):
        return candidates
    named = {fold(m.text) for m in question.mentions}

    def another(candidate: T) -> bool:
        n, text = where(candidate)
        if any(holds(m, text) or holds(m, evidence[n - 1].label) for m in asked):
            return False
        return any(number_pattern(m.text) in patterns and fold(m.text) not in named
                   for m in mentions_in(text))

    return [c for c in candidates if not another(c)]


def _defining_the_asked(question: Question, evidence: Sequence[Evidence], candidates: list[T],
                        where: Callable[[T], tuple[int, str]]) -> list[T]:
    """``candidates`` without the definitions of flags not asked (any sentence of one: a
    long definition's later sentences carry its term, :attr:`abstain.text.Unit.term`), when
    the question names a one-letter flag that a passage of ``evidence`` defines: "-L,
    --files-without-match: …" is no answer about grep's ``-l``, nor an exit status's "0: if
    it succeeds" about xargs's ``-0``. When a page the question names defines it
    (:func:`abstain.align.names_the_page`: ls's ``-l``), its definitions on other pages go
    too (grep's ``-l``). ``where`` gives a candidate's evidence number and text."""
    asked = question.letter_flags
    defining = {n for n, ev in enumerate(evidence, 1) if any(defines(m, ev) for m in asked)}
    if not defining:
        return candidates
    named = {n for n in defining if names_the_page(question, evidence[n - 1])}
    numbers = {m.text[1:] for m in asked if m.text[1:].isdigit()}  # "0: if it succeeds"
    terms_of: dict[int, dict[str, str]] = {}

    def defined(candidate: T) -> tuple[int, list[str]]:
        n, text = where(candidate)
        if n not in terms_of:
            terms_of[n] = {u.text: u.term for u in split_units(evidence[n - 1].text) if u.term}
        terms = [*definition_terms(text), terms_of[n].get(text, "")]
        return n, [t for t in terms if t and (FLAG.search(t) or t in numbers)]

    def kept(candidate: T) -> bool:
        n, terms = defined(candidate)
        if not terms:
            return True
        of_asked = any(holds(m, t) for t in terms for m in asked)
        return of_asked and (not named or n in named)

    return [c for c in candidates if kept(c)]


def _asked_flags_defined(question: Question, text: str, term: str = "") -> set[str]:
    """The one-letter flags asked that ``text`` defines (:func:`abstain.align.definition_terms`)
    or, as a later sentence of a long definition, its ``term``
    (:attr:`abstain.text.Unit.term`)."""
    terms = [t for t in (*definition_terms(text), term) if t]
    return {m.text for m in question.letter_flags if any(holds(m, t) for t in terms)}


def _another_asked_flag(question: Question, text: str, quoted: list[str]) -> bool:
    """Whether ``text`` defines a one-letter flag asked that no ``quoted`` text defines: the
    other side of "-l or -L?", though it is the next item of the same list."""
    return bool(_asked_flags_defined(question, text) - {
        f for q in quoted for f in _asked_flags_defined(question, q)})


def _defines_an_asked_flag(question: Question, unit: Unit) -> bool:
    """Whether ``unit`` is (a sentence of) the definition of a one-letter flag asked."""
    return bool(_asked_flags_defined(question, unit.text, unit.term))


def _another_row(candidate: tuple[float, bool, int, int, str, bool],
                 kept: tuple[float, bool, int, int, str, bool],
                 evidence: Sequence[Evidence]) -> bool:
    """Whether ``candidate`` is a row of the table a kept row is of, in the same document,
    that holds less of what is asked (its overlap before the evidence's rank is weighed):
    another record ("week 8" beside "week 6"), wherever the chunks cut the table. Rows that
    match alike both stay: the question does not tell them apart; so do rows of another
    document's table of the same columns (another team's rota)."""
    if not kept[5] or (evidence[candidate[2] - 1].document.id
                       != evidence[kept[2] - 1].document.id):
        return False
    ours, theirs = Row.parse(candidate[4]), Row.parse(kept[4])
    if ours is None or theirs is None or not same_table(ours, theirs):
        return False

    def unweighted(s: tuple[float, bool, int, int, str, bool]) -> float:
        return s[0] * (1 + RANK_DECAY * (s[2] - 1))

    return unweighted(candidate) < unweighted(kept) - 1e-9


def _one_unit_each(question: Question, evidence: Sequence[Evidence],
                   chosen: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The reader's quote with, of the whole units it holds of one passage (list items, table
    rows, definitions), only the one that holds most of what is asked: a window can span
    neighbouring items, and the next item's value is not this one's (word overlap's quote
    keeps the same rule). A unit that defines another flag asked stays ("-l or -L?")."""
    terms = asked_terms(question)
    whole: dict[int, set[str]] = {}
    for n, _, _ in chosen:
        if n not in whole:
            whole[n] = {u.text for u in split_units(evidence[n - 1].text)
                        if u.whole and not u.code}
    best: dict[int, tuple[float, str]] = {}
    for n, _, text in chosen:
        if text in whole[n]:
            ev = evidence[n - 1]
            score = asked_share(terms, question.identifiers, text, ev.label, set(stems(ev.label)))
            if n not in best or score > best[n][0]:
                best[n] = (score, text)
    return [c for c in chosen if c[2] not in whole[c[0]] or best[c[0]][1] == c[2]
            or _another_asked_flag(question, c[2], [best[c[0]][1]])]


FOLLOWING_LIST = re.compile(r"\bthe following\b[^:]*\.\s*$", re.IGNORECASE)
"""A sentence that introduces the list after it without a colon: "SQLFluff will look for the
following files in order.", "The following values are supported." (44 such lead-ins in the
184 projects of data/userdocs)."""


def _with_what_they_introduce(chosen: list[tuple[int, int, str]],
                               units_of: Sequence[Sequence[Unit]]) -> list[tuple[int, int, str]]:
    """The chosen units, each one that ends on a colon ("Example implementation:", "This is
    useful for password input:") followed by the unit it introduces — a code block, a list
    item, the next sentence — which a reader needs to make sense of it; and one that names
    "the following" and ends on a full stop followed by the list it introduces
    (:data:`FOLLOWING_LIST`)."""
    out: list[tuple[int, int, str]] = []
    taken = {(n, position) for n, position, _ in chosen}
    for n, position, text in chosen:
        out.append((n, position, text))
        units = units_of[n - 1]
        listed = next((at for at in range(position + 1, min(position + 3, len(units)))
                       if _item(units[at])), None) if FOLLOWING_LIST.search(text) else None
        if text.rstrip().endswith(":") or listed is not None:
            end = position + 2
            first = listed if listed is not None else position + 1
            if first < len(units) and _item(units[first]):
                # a list it introduces is quoted whole ("runs three checks:" and the three),
                # with a sentence between ("… the following files in order. Later ones win.")
                end = first + 1
                while (end < len(units) and _item(units[end])
                       and end - first < LIST_ITEMS_QUOTED):
                    end += 1
            for at in range(position + 1, min(end, len(units))):
                if (n, at) not in taken:
                    out.append((n, at, units[at].text))
                    taken.add((n, at))
    return sorted(out, key=lambda c: (c[0], c[1]))


PROCEDURE_LEAD = re.compile(
    r"(?:^|\b)(?:to\s+\w+|steps?|follow(?:ing|\s+these)?|procedure|instructions?|how\s+to|"
    r"do\s+the\s+following|as\s+follows)\b[^:]*:\s*$|^\s*(?:steps?|procedure)\b", re.IGNORECASE)
"""A sentence that introduces a procedure: "To reset a password:", "Follow these steps:",
"Do the following:" (not "Account policies:")."""


def _whole_procedures(chosen: list[tuple[int, int, str]], units_of: Sequence[Sequence[Unit]],
                      headings_of: Sequence[set[str]]) -> list[tuple[int, int, str]]:
    """For a how-to question: each chosen step of a procedure — a list item under a sentence
    that introduces a procedure (:data:`PROCEDURE_LEAD`), or of a list whose items mostly open
    as commands ("Open the console.", :func:`_a_command`) — with that sentence and the
    procedure's steps from its first (up to :data:`LIST_ITEMS_QUOTED`, the chosen one always):
    "How do I reset a password?" was answered with step 4 of 5, its identity check left out.
    A list of facts ("Account policies:") is not widened; table rows are records, not
    steps. A lead that is the section's heading ("Steps", ``headings_of``: each chunk's
    headings and title) says nothing the answer needs: it is not quoted."""
    out = list(chosen)
    taken = {(n, position) for n, position, _ in chosen}
    for n, position, _ in chosen:
        units = units_of[n - 1]
        if not _step(units[position]):
            continue
        start = position
        while start > 0 and _step(units[start - 1]):
            start -= 1
        end = start
        while end + 1 < len(units) and _step(units[end + 1]):
            end += 1
        led = start > 0 and PROCEDURE_LEAD.search(units[start - 1].text) is not None
        commands = sum(_a_command(units[at].text) for at in range(start, end + 1))
        if not led and 2 * commands <= end - start + 1:
            continue  # a list of facts, not the steps of a procedure
        quote_lead = led and units[start - 1].text.strip() not in headings_of[n - 1]
        for at in [*([start - 1] if quote_lead else []),
                   *range(start, min(end, start + LIST_ITEMS_QUOTED - 1) + 1)]:
            if (n, at) not in taken:
                out.append((n, at, units[at].text))
                taken.add((n, at))
    return sorted(out, key=lambda c: (c[0], c[1]))


def _a_command(text: str) -> bool:
    """Whether a list item opens as a command ("Open the console.", "Right-click the
    account"): a step of a procedure (:data:`abstain.text.words.STEP_VERBS`)."""
    first = text.split(maxsplit=1)[0].strip(".,:;").lower() if text.strip() else ""
    return first in STEP_VERBS


def _step(unit: Unit) -> bool:
    """A list item that is not a table row."""
    return _item(unit) and Row.parse(unit.text) is None


def _item(unit: Unit) -> bool:
    """A list item, definition or table row (a whole unit of one line, not a code block)."""
    return unit.whole and not unit.code and "\n" not in unit.text


def _with_what_it_points_back_to(window: tuple[str, ...], sentences: list[str]) -> list[str]:
    """The window's sentences, after the sentence before them when the first points back."""
    first = window[0] if window else ""
    words = tokens(first)
    if words and words[0] in POINTS_BACK and first in sentences:
        at = sentences.index(first)
        if at > 0:
            return [sentences[at - 1], *window]
    return list(window)


def _redundant(a: str, b: str, threshold: float = 0.6) -> bool:
    """Near-duplicate sentences (Jaccard over folded words): say it once."""
    wa, wb = set(tokens(a)), set(tokens(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= threshold
