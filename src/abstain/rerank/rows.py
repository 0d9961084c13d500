"""Reading a table row by its columns, where the reader reads a row as prose.

Ingest writes a table row (CSV, spreadsheet, Markdown/HTML/reST/Word tables) as one line of
"column: value" pairs (:func:`abstain.ingest.blocks.table_row`). The reader was trained on
sentences; it scores such a line by its words and cannot tell a row that holds the asked
column from one that does not ("Which carrier shipped ORD-00411?" reads as answered by a row
with no carrier). A row is a record, so it can be read as one. A question about many rows
("how many accounts …", "list all …", "the highest …", "more … than") is answered by no one
row. Else, when a row holds everything the question names (its identifiers, names and
paths, :func:`keys_named`, among its values) and no other row of its table read holds the
same,

* it **answers** when an asked word names a column other than the one the asked
  identifier sits in, and every asked word is in the row — or, for a what / which
  question, every word of what it asks for ("Which *city* was ORD-00411 shipped to?" of
  ``order_id: ORD-00411; city: Tartu; status: pending``: "shipped" is the question's verb),
  or when the question writes a column's name as its header does ("What is the *Opened At*
  timestamp of TKT-55441?": a capitalised name that is a column, not a key);
* it also **answers** when no asked word names a column but the question reads, by meaning,
  as asking for one column of the row and clearly not another (:func:`column_by_meaning`:
  "how heavy is SKU-00170?" of ``weight_kg``, "which operating system does web-14 run?" of
  ``OS``);
* else it **does not answer** when the question names what it asks for ("which *carrier*", "what
  is the *discount* on", :func:`asked_property`), a word of that is nowhere in the row, and
  the question does not ask for a place, a date, a person, an amount or a name that a
  column may hold under another name ("where", "when", "who", "how", "what is X called") —
  "Which *carrier* shipped ORD-00411?", "What is the customer *satisfaction* score of …?";
* else the reader's score stands ("How much did ORD-00411 cost?" of a ``total_eur`` column).

The rows read that hold less of what the question names than another row read are other
records and do not answer (:func:`read`): the reader scores every row of a table alike.

:func:`abstain.rerank.reading.read_evidence` applies the verdict to that window's probability;
the audit trail's reading names the verdict (``Reading.by_columns``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from abstain.align.checks import holds
from abstain.asked import MARKERS
from abstain.embed import Embedder
from abstain.evidence import RowVerdict
from abstain.mentions import Kind, Mention
from abstain.question import Question
from abstain.text import content_words, english_rarity, fold, stem, stem_set, tokens

P_ANSWERS = 0.9
"""A row's probability when its columns answer: above the reading's veto and the bar at
which the word-level checks are waived (``GateThresholds.waive_lexical_at``)."""
P_DOES_NOT_ANSWER = 0.05
"""A row's probability when it names the asked thing but holds no column for what is
asked: below every preset's veto."""

ANSWERED_RIGHT = 16 / 17
"""P(right) of an answer whose best window is a row that answers by its columns: each of the
15 such answers to bench/data/tables' 80 questions was right (``--answer-all``), smoothed by
the rule of succession, (15 + 1) / (15 + 2). The answer confidence was fitted on no table
(its retrieval features read a row found by the keyword arm alone as weak evidence: the
vector arm cannot tell one row from the next), so the gate states at least this
(:func:`abstain.gate.row_lookup`). On sets B and C, 29 of 30 such answers were right; on set
D (Excel workbooks and a CSV, with the columns read by meaning too), 21 of 21
(docs/EVALUATION.md, "Tables")."""

_PAIR = re.compile(r"^([^:;]{1,60}):\s(.*)$")
_MAX_COLUMN_WORDS = 6
_PROPERTY = re.compile(r"^\W*(?:what|which)(?:'s|\s+(?:is|are|was|were))?\s+(?:the\s+|an?\s+)?"
                       r"(.*)$", re.IGNORECASE)
"""What a what / which question asks for starts after these words: "which *carrier shipped
ORD-00411*", "what is the *discount on SKU-1*" — and ends where the row's key begins."""
_POSSESSED = re.compile(r"\w['’]s\s+((?:[\w-]+\s+){0,3}[\w-]+)\s*[?.!]*\s*$")
""""What is E-10423's *home address*?": what a possessive at the end asks for."""
_VERB = re.compile(r"\s(?:is|are|was|were|does|do|did|has|have|had|will|can|should)\b",
                   re.IGNORECASE)
"""What a question asks for ends at its verb: "Which owner team *is* listed for …?"."""
_CELL = frozenset({"value", "values"})
"""Every cell of a row is a value: "the default *value* of X" asks for the default (but
"what *values* are allowed" asks for the allowed values)."""
_PATH = re.compile(r"(?<![\w/.:~-])/[\w.{}~-]*[A-Za-z][\w.{}~-]*(?:/[\w.{}~-]+)*/?(?![\w/])")
"""A path the question writes: an endpoint ("/v2/reports") or a file's ("/etc/app.toml")."""
_TYPE_WORDS = tuple(("day date time timestamp year month week hour minute second number amount "
                     "figure").split())
"""Words that ask for a type of value rather than name a column."""
_ACROSS_ROWS = re.compile(
    r"\b(?:list|all|every|total|sum|average|mean|median|most|least|highest|lowest|largest|smallest"
    r"|biggest|maximum|minimum|more|fewer|less|compare|compared|rank|ranking)\b",
    re.IGNORECASE)
"""Words of a question about many rows ("list all churned accounts", "the highest price",
"more severe than"), unless they name a column ("Max Connections")."""
PROPERTY_WORDS = 4
"""What a question asks for is at most this many content words ("date of birth")."""
_DEFERS = re.compile(r"(?:see|refer\s+to)\s+(?:the\s+|our\s+)?(?:wiki|docs?|documentation|below"
                     r"|above|page|link|section|notes?|faq)\b.*|tbd|tba|\?+", re.IGNORECASE)
"""A cell that says where its value is, or that it is not settled yet ("see wiki", "see
below", "TBD"): it answers nothing asked of its column. ("N/A" or "—" may mean "none", an
answer; "Check disk usage" is one.)"""
_ASKS_OTHERWISE = re.compile(r"\b(?:where|when|who|whom|whose|how|called|named)\b",
                             re.IGNORECASE)
"""A place, date, person, amount, manner or name: a column may hold it under another name."""
COLUMN_MATCH = 0.45
COLUMN_MARGIN = 0.3
"""A question asks, by meaning, for the column whose name's embedding is nearest to what it
asks for when that cosine is at least COLUMN_MATCH and beats every other column's by
COLUMN_MARGIN (:func:`column_by_meaning`). Chosen on bench/data/tables A–C, the rows found
(62 answerable questions, 63 near misses that ask for a column the table lacks): no near
miss comes within both bars (the nearest, "What is the disk size on batch-59.dev?": RAM GB
at 0.54, margin 0.27), and the answerable questions that pass are each read to the right
column. Where no asked word names a column, 4 of the 62 are; on set D, written blind, 3 of
23, each right, and no near miss (docs/EVALUATION.md, "Tables")."""


@dataclass(frozen=True, slots=True)
class Row:
    """A table row as ingest writes it: its (column, value) pairs."""

    cells: tuple[tuple[str, str], ...]

    @property
    def columns(self) -> tuple[str, ...]:
        """Its column names (:func:`same_table` tells the rows of one table)."""
        return tuple(column for column, _ in self.cells)

    @classmethod
    def parse(cls, window: str) -> Row | None:
        """The row ``window`` is, when it is exactly one row of at least two named cells (its
        list marker, which the reader's windows drop, or not); not several short rows joined
        into one window, whose values hold the columns again."""
        text = window.strip().removeprefix("- ")
        cells: list[tuple[str, str]] = []
        for part in text.split("; "):
            match = _PAIR.match(part)
            if match is None or not _a_column(match.group(1)):
                return None
            cells.append((match.group(1).strip(), match.group(2).strip()))
        names = [f"{column}: " for column, _ in cells]
        if any(name in value for name in names for _, value in cells):
            return None  # short rows the windows join: "carrier: DHL order_id: ORD-2"
        return cls(tuple(cells)) if len(cells) >= 2 else None


def _a_column(name: str) -> bool:
    """Whether ``name`` reads as a column's name: a few words, its brackets closed ("Amount
    (EUR)"; not "The Normans (Norman" of "The Normans (Norman: Nourmands; French: …)")."""
    return (len(name.split()) <= _MAX_COLUMN_WORDS
            and name.count("(") == name.count(")") and name.count("[") == name.count("]"))


def verdict(question: Question, row: Row, *, unique: bool = True,
            named: tuple[Mention, ...] | None = None,
            embedder: Embedder | None = None, context: str = "",
            states_default: bool = False) -> RowVerdict | None:
    """Whether ``row`` answers ``question`` by its columns; None where it cannot tell, or
    where the row is not the record asked about. ``unique``: no other row of its table read
    holds what keys this one (else the question is about several rows); ``named``: the
    question's :func:`keys_named`, when the caller has them; ``embedder``: reads which
    column the question asks for by meaning when its words do not say
    (:func:`column_by_meaning`; None: by words alone); ``context``: the row's page title and
    headings, whose words the row holds too ("the Q2 *budget*" of a budget sheet's row);
    ``states_default``: the row states the default the question asks for
    (:mod:`abstain.rerank.defaults`), so what it asks for is there whatever words ask it."""
    column_stems = [{stem(t) for t in tokens(column)} for column, _ in row.cells]
    named_columns = set().union(*column_stems)
    if any(stem(fold(w)) not in named_columns for w in _ACROSS_ROWS.findall(question.asked)):
        return RowVerdict.DOES_NOT_ANSWER  # "list all …", "the highest …": many rows
    measured = {m for m in question.measure if m not in MARKERS}
    if measured & column_stems[0]:  # "how many SLA tiers are there?" of a Tier column
        return RowVerdict.DOES_NOT_ANSWER
    named = keys_named(question) if named is None else named
    columns_named = [m for m in named if _a_column_named(m, row.columns, row)]
    named = tuple(m for m in named if m not in columns_named)
    if not named:
        return None
    value_words = [set(tokens(value)) for _, value in row.cells]
    everything = set().union(*value_words, *(set(tokens(c)) for c, _ in row.cells))
    keyed = {i for i, (_, value) in enumerate(row.cells) for m in named if _in(m, value)}
    if not keyed:
        return None
    ids = [m for m in named if m.kind is Kind.IDENTIFIER and m.words]
    if len(ids) > 1 and not all(set(m.words) <= everything for m in ids):
        return RowVerdict.DOES_NOT_ANSWER  # "is INC-1 more severe than INC-2?": one row of two
    if not all(set(m.words) <= everything for m in named):
        return None
    if measured and not unique:
        return RowVerdict.DOES_NOT_ANSWER  # "how many accounts are on the Enterprise plan?"
    value_stems = {stem(t) for words in value_words for t in words}
    naming: set[int] = set()
    missing = False
    for term in question.terms:
        if term.context or term.compound or term.word in _CELL:
            continue
        columns = {i for i, stems in enumerate(column_stems) if term.stem in stems}
        if columns - keyed:
            naming |= columns - keyed
        elif term.stem not in value_stems and not columns:
            missing = True
    held = value_stems | named_columns | {stem(t) for t in tokens(context)}
    asked_for = [stem(w) for w in asked_property(question, row.columns)]
    asked_cells = [value for i, (column, value) in enumerate(row.cells) if i in naming
                   or any(set(m.words) <= set(tokens(column)) for m in columns_named)]
    if unique and asked_cells and all(_DEFERS.fullmatch(v.strip()) for v in asked_cells):
        return RowVerdict.DOES_NOT_ANSWER  # "default: see wiki" states no default
    if unique and columns_named and all(w in held for w in asked_for):
        return RowVerdict.ANSWERS  # a column named as its header writes it, nothing else
    if unique and naming and (not missing or (asked_for and all(w in held for w in asked_for))):
        return RowVerdict.ANSWERS
    if unique and embedder is not None and column_by_meaning(
            question, [c for i, (c, _) in enumerate(row.cells) if i not in keyed],
            embedder) is not None:
        return RowVerdict.ANSWERS
    if states_default:
        return None
    if ids and measured and not measured <= held:
        return RowVerdict.DOES_NOT_ANSWER  # "how many seats does ACME-1 have?" of an incident
    if any(w not in held for w in asked_for) and not _ASKS_OTHERWISE.search(question.asked):
        return RowVerdict.DOES_NOT_ANSWER
    return None


def column_by_meaning(question: Question, columns: Sequence[str], embedder: Embedder
                      ) -> str | None:
    """The one of ``columns`` (a row's, less the one its key sits in) that ``question``
    asks for by meaning: the column whose name ("weight_kg" read "weight kg") the embedder
    places nearest what the question asks for (:func:`asked_property`: "insurance expiry"
    of "What is the insurance expiry date of FL-1013?", whose "date" alone would find a
    date column; else the question less what it names: "how heavy is"), by
    :data:`COLUMN_MATCH` and :data:`COLUMN_MARGIN`; None when none is, or two are about as
    near — and when a word of what it asks for names a column, for then its words decide:
    "What is the purchase cost of LT-04711?" asks for no Purchase Date, "the vendor
    contact email" for no Vendor."""
    if not columns:
        return None
    asked = " ".join(asked_property(question, columns)) or question.text
    for key in keys_named(question):
        if not _a_column_named(key, columns):
            asked = asked.replace(key.text, " ")
    column_stems = {stem(t) for column in columns for t in tokens(column)}
    if any(stem(w) in column_stems for w in content_words(asked)):
        return None  # its words decide: "purchase cost" is not the Purchase Date column
    vectors = np.asarray(embedder.embed_batch(
        [asked, *(c.replace("_", " ") for c in columns)]), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1)
    cosines = (vectors[1:] @ vectors[0]) / np.maximum(norms[1:] * norms[0], 1e-9)
    order = np.argsort(-cosines)
    best = float(cosines[order[0]])
    second = float(cosines[order[1]]) if len(columns) > 1 else -1.0
    return columns[int(order[0])] if best >= COLUMN_MATCH and best - second >= COLUMN_MARGIN \
        else None


def keys_named(question: Question) -> tuple[Mention, ...]:
    """What a question names that may key a row: its identifiers and names, and the paths it
    writes ("/v2/reports": the identifier grammar reads only its "v2", which every
    ``/v2/…`` row holds)."""
    named = (*question.identifiers, *question.names)
    paths = tuple(Mention(path, Kind.IDENTIFIER, "path") for path in _PATH.findall(question.text)
                  if all(m.text != path for m in named))
    within = {m.text for m in named for p in paths if m.text in p.text}  # "v2" of /v2/reports
    return tuple(m for m in named if m.text not in within) + paths


def _a_column_named(mention: Mention, columns: Sequence[str], row: Row | None = None) -> bool:
    """Whether ``mention`` is a column's name written as its header writes it, not a key
    ("the *Start* date of CT-2022-0215", "the *Opened At* timestamp of TKT-1", "the *Q2*
    budget"): a name or an identifier whose words are all in one of ``columns`` (and in none
    of ``row``'s values)."""
    if mention.kind not in (Kind.NAME, Kind.IDENTIFIER) or not mention.words:
        return False
    if row is not None and any(_in(mention, value) for _, value in row.cells):
        return False
    return any(set(mention.words) <= set(tokens(column)) for column in columns)


def asked_property(question: Question, columns: Sequence[str] = ()) -> list[str]:
    """The content words of what a "what / which" question asks for, up to the first thing
    it names or its verb, less the word just before the name that says what kind of thing
    that is: "carrier" of "Which carrier shipped ORD-00411?", "date birth" of "What's the
    date of birth of Sven Lindqvist?", "status" of "What is the status of order ORD-1?",
    "home address" of "What is X's home address?"; [] for a question that asks otherwise
    ("What does `pdm install --prod` do if …?"). A name that is one of ``columns``, written
    capitalised, is part of what is asked, not the thing it ends at ("start date" of "What
    is the Start date of CT-2022-0215?")."""
    asked = question.asked
    match = _POSSESSED.search(asked)
    if match is None:
        match = _PROPERTY.search(asked)
        if match is None:
            return []
    text = _VERB.split(match.group(1), maxsplit=1)[0]  # "which owner team | is listed for"
    ends = [text.find(m.text) for m in question.mentions
            if m.text in text and not _a_column_named(m, columns)]
    if not ends:
        return _without_cell(content_words(text))[:PROPERTY_WORDS]
    words = content_words(text[:min(ends)])
    if words and text[:min(ends)].rstrip().lower().endswith(words[-1]):
        words = words[:-1]  # the key's kind: "order" of "… of order ORD-00411"
    return _without_cell(words)[:PROPERTY_WORDS]


def _without_cell(words: list[str]) -> list[str]:
    """``words`` less "value" where another word says which value ("the default value"),
    and less the words of a type of value ("what *day* was INC-1 raised": a date, which a
    column holds under its own name)."""
    kept = [w for w in words if w not in _CELL]
    return [w for w in (kept or words) if stem(w) not in stem_set(_TYPE_WORDS)]


def read(question: Question, windows: Sequence[str], probabilities: Sequence[float], *,
         embedder: Embedder | None = None, contexts: Sequence[str] = (),
         stated: Sequence[bool] = ()) -> list[tuple[float, RowVerdict | None]]:
    """Each window's probability with its row's verdict applied, and the verdict. The rows
    read that hold fewer of the question's identifiers and names than another row read are
    other records: they do not answer (the reader scores every row of a table alike; "Pied
    Piper Media Inc" is not "Pied Piper Logistics Inc"). Of the rows of one table that hold
    the same key, the record asked about is the one that holds it in an earlier column
    ("Full name: Peter Brandt" before "… Manager: Peter Brandt": the others name it as a
    reference), else the one whose values hold more of the question's words ("the Q2
    budget for training in CC-200": the Training row of CC-200's, not Travel's); two rows
    alike in every cell (a copy of a workbook) are one record; else none of them is the one
    record asked about. ``stated``: per window, whether it states the default asked for
    (:func:`verdict`'s ``states_default``)."""
    parsed = [Row.parse(w) for w in windows]
    named = keys_named(question)
    keys = [_keys(named, row) for row in parsed]
    keyed = [(row, key) for row, key in zip(parsed, keys, strict=True) if row is not None and key]

    def rivals(row: Row, key: frozenset[str]) -> list[Row]:
        return [other_row for other_row, other in keyed if other_row.cells != row.cells
                and same_table(row, other_row) and key <= other]

    asked = {stem(w) for w in content_words(question.text)}

    def rank(row: Row, key: frozenset[str]) -> tuple[int, int]:
        """Lower first: where the row holds its key, then how few asked words its values
        hold ("the Q2 budget for *training* in CC-200": the Training row, not Travel's)."""
        held = {stem(t) for _, value in row.cells for t in tokens(value)}
        return _held_at(row, key, named), -len(asked & held)

    def unique(row: Row, key: frozenset[str]) -> bool:
        return all(rank(row, key) < rank(other, key) for other in rivals(row, key))

    def referenced(row: Row, key: frozenset[str]) -> bool:
        return bool(key) and any(rank(other, key) < rank(row, key)
                                 for other in rivals(row, key))

    pages = [*contexts, *[""] * (len(windows) - len(contexts))]
    states = [*stated, *[False] * (len(windows) - len(stated))]
    verdicts = [None if row is None else verdict(question, row, unique=unique(row, key),
                                                 named=named, embedder=embedder, context=page,
                                                 states_default=default)
                for row, key, page, default in zip(parsed, keys, pages, states, strict=True)]
    most = max(map(len, keys), default=0)  # the asked record holds most of what is named
    out: list[tuple[float, RowVerdict | None]] = []
    for row, key, found, p in zip(parsed, keys, verdicts, probabilities, strict=True):
        if row is not None and found in (None, RowVerdict.ANSWERS) and (
                len(key) < most or referenced(row, key)):
            found = RowVerdict.ANOTHER_RECORD
        if (row is not None and found is RowVerdict.ANSWERS
                and _names_another(row, parsed, question.text)):
            found = RowVerdict.DOES_NOT_ANSWER  # "the defaults of max_workers and minify"
        if found is RowVerdict.ANSWERS:
            p = max(p, P_ANSWERS)
        elif found is not None:
            p = min(p, P_DOES_NOT_ANSWER)
        out.append((p, found))
    return out


def _names_another(row: Row, rows: Sequence[Row | None], question: str) -> bool:
    """Whether the question also names another record of ``row``'s table among ``rows``
    read: the first cell (its key) of another row of the same table, written whole in the
    question ("What are the default values of max_workers and minify?" names the ``minify``
    row beside the ``max_workers`` one). One row answers about one record: a question about
    two is about several rows, which no one row answers (a newcomer's "max_workers and
    minify" was answered "confident" from the max_workers row alone). Not a key the asked
    row's own key holds ("cache" of ``cache_dir``, "GitHub" of "GitHub Actions"), nor one
    whose words the asked row holds anyway, nor a plain word common in English ("server",
    "default", "value": :data:`RARE_KEY`), which a question says for other reasons."""
    own = set(tokens(row.cells[0][1]))
    held = {t for column, value in row.cells for t in (*tokens(column), *tokens(value))}
    for other in rows:
        if other is None or other.cells == row.cells or not same_table(row, other):
            continue
        key = other.cells[0][1].strip()
        words = set(tokens(key))
        if not words or words <= own or words <= held:
            continue
        if not _IDENTIFIER_LIKE.search(key) and any(english_rarity(w) < RARE_KEY
                                                     for w in words):
            continue
        if re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", question, re.IGNORECASE):
            return True
    return False


RARE_KEY = 0.9
"""How rare in English (:func:`~abstain.text.words.english_rarity`) each word of a plain key
must be for the question to name that row by it: "minify" (1.0) does, "server" (0.62),
"default" (0.68) or "value" (0.34) may be said for another reason."""
_IDENTIFIER_LIKE = re.compile(r"[_\-./\d]|[a-z][A-Z]")
"""A key written as an identifier (``max_workers``, ``--color``, ``v2``, ``GitHubActions``):
named only as itself."""


def same_table(a: Row, b: Row) -> bool:
    """Whether two rows read come from one table: they share most of their columns after the
    first (a row leaves its empty cells out, and a window may join a heading to the first
    column's name: "Global flags Flag")."""
    ours, theirs = set(a.columns[1:]), set(b.columns[1:])
    return 2 * len(ours & theirs) >= min(len(ours), len(theirs)) > 0


def _held_at(row: Row, key: frozenset[str], named: Sequence[Mention]) -> int:
    """The first column of ``row`` whose value holds one of ``key`` (texts of ``named``)."""
    return min((i for i, (_, value) in enumerate(row.cells)
                for m in named if m.text in key and _in(m, value)), default=len(row.cells))


def _keys(named: Sequence[Mention], row: Row | None) -> frozenset[str]:
    """What of ``named`` (a question's :func:`keys_named`) ``row`` holds among its values."""
    if row is None:
        return frozenset()
    return frozenset(m.text for m in named if any(_in(m, value) for _, value in row.cells))


def _in(mention: Mention, value: str) -> bool:
    """Whether a cell's value holds ``mention``: an identifier or a flag whole ("--server",
    not the word "server" of "the server certificate"), a name by its words."""
    if not mention.words:
        return False
    if mention.kind is Kind.IDENTIFIER or mention.why == "flag":
        return holds(mention, value)
    return set(mention.words) <= set(tokens(value))
