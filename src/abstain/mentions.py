"""What a question names: identifiers, names and the terms it asks about.

A question is read as *asked* sentences (the ones ending in "?", or all of
them when none does, widened to the sentence before when the asked part is a
bare "Why?") and *context* sentences around them. What it names falls in three
kinds, which the gate treats differently (see :mod:`abstain.align`):

* **identifiers** — error codes (``E1207``, ``ADR-0007``, ``e1207``), versions
  (``1.3.2``, ``v2``), lowercase names with digits (``grpc2``, ``wal2``),
  dotted and called names (``module.Class``, ``Class.method()``, ``commit()``),
  ``snake_case`` and ``ALL_CAPS_WITH_UNDERSCORES`` names, quoted ``CamelCase``
  compounds, quoted command lines (```sqlite-utils doctor```), and single words
  in quotes or backticks. The
  evidence must hold each one whole.
* **names** — capitalised and CamelCase words outside code quotes (``Kubernetes``,
  ``SQLCipher``, ``QueuePool``, "GitHub Actions" as one name) and
  ``--flags`` (often the user's own illustration: "``--name Bob``"). Each must
  exist somewhere in the workspace (a flag of several words written there as one token,
  ``--proxy-headers`` or ``proxy_headers``, not only its words in prose); whether the
  evidence holds it is left to the weighted coverage.
* **soft mentions** — what the user offers as context or comparison ("like
  pandas' ``df.head()``", "instead of ``python hello.py``"), file names and
  extensions of the user's own files (a capitalised ``Name.js`` is a product, Express.js,
  so a name). They never refuse on their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from abstain.text import content_words, fold, joined, split_sentences, stem, tokens
from abstain.text.grammar import FILE, OPTION_NAME, PATTERNS, is_abbreviation, names_in
from abstain.text.words import LIGHT_WORDS, STOPWORDS


class Kind(StrEnum):
    IDENTIFIER = "identifier"
    NAME = "name"
    SOFT = "soft"


@dataclass(frozen=True, slots=True)
class Mention:
    text: str
    """As the user wrote it (``APP_CACHE_TTL``, ``--fts6``, ``Kubernetes``)."""
    kind: Kind
    why: str
    """What made it one: ``code``, ``version``, ``dotted``, ``call``, ``snake``, ``env``,
    ``camel``, ``flag``, ``quoted``, ``name``, ``file``, ``comparison``, ``context``."""

    @property
    def words(self) -> tuple[str, ...]:
        """Its folded words, the unit it is matched by (case-, hyphen- and
        underscore-insensitive)."""
        return tuple(tokens(self.text))

    @property
    def letter_flag(self) -> bool:
        """A one-letter command-line flag asked about (``-l``, ``-L``, and the other side of
        "``-f`` vs ``-F``"): no content word, and its case tells it from another (grep's
        ``-l`` is not ``-L``). Not one the user sets aside ("without ``-i``")."""
        return self.why in ("flag", "comparison") and LETTER_FLAG.fullmatch(self.text) is not None


@dataclass(frozen=True, slots=True)
class Term:
    word: str
    """Folded content word of the question."""
    stem: str
    context: bool
    """From a context sentence or a soft mention, not from what is asked."""
    compound: bool = False
    """Part of a hyphenated compound ("one-liner"): a fragment, never decisive alone."""
    joins: tuple[str, ...] = ()
    """The word written together with the question's word before or after it, stemmed ("log
    in": login; "wi-fi": wifi): a text that writes it as one word holds it
    (:func:`abstain.text.holds_word`)."""


@dataclass(frozen=True, slots=True)
class QuestionParts:
    """What :func:`parse_question` reads; :meth:`abstain.question.Question.parse` keeps it."""

    mentions: tuple[Mention, ...]
    terms: tuple[Term, ...]
    asked: str
    """The asked sentences, the part whose answer type counts."""


_BACKTICK = re.compile(r"`([^`]{1,120})`")
_QUOTED = re.compile(r"[\"“”«»]([^\"“”«»]{1,60})[\"“”«»]")
_COMPARISON = re.compile(
    r"(?:\blike|\bsuch as|\bsimilar to|\binstead of|\brather than|\bcompared (?:to|with)|\bvs\.?"
    r"|\bversus|\bequivalent (?:of|to)|\banalogous to|\bthan|\be\.g\.,?|\bfor example,?)"
    r"\s+(?:\S+\s+){0,2}[`'\"“(]*$", re.IGNORECASE)
_SET_ASIDE = re.compile(
    r"(?:\bwithout|\bnot (?:us(?:e|ing)|pass(?:ing)?|set(?:ting)?)|n[’']t (?:use|pass|set|want)"
    r"|\balready (?:use|pass|set)|\bbesides|\bother than|\bexcept|\bapart from)"
    r"\s+(?:\S+\s+)?[`'\"“(]*$", re.IGNORECASE)
"""What sets a flag aside as the user's context, not what is asked: "without -i, how …",
"I don't use -r", "I already pass -v"."""
LETTER_FLAG = re.compile(r"-[A-Za-z0-9]")
"""A one-letter (or one-digit) flag, whose case tells it from another: ``-l`` is not ``-L``."""
_DIGIT_FLAG = re.compile(r"(?<![\w-])([a-z][a-z0-9-]*)\s+(-\d)(?=[\s?!,;:)]|\.?$)")
"""A one-digit flag right after a command's name ("xargs -0", "kill -9", "gzip -1"); after
a word that says how a question is asked or a function word it is a number ("is -1",
"to -1")."""


def parse_question(question: str) -> QuestionParts:
    sentences = split_sentences(" ".join(question.split())) or [question]
    asked_idx = [i for i, s in enumerate(sentences) if s.rstrip().endswith("?")]
    if not asked_idx:
        asked_idx = list(range(len(sentences)))
    first = asked_idx[0]
    if first > 0 and len(content_words(" ".join(sentences[i] for i in asked_idx))) < 2:
        asked_idx.insert(0, first - 1)
    mentions: dict[str, Mention] = {}
    soft_spans: list[str] = []
    for i, sentence in enumerate(sentences):
        context = i not in asked_idx
        for mention in _mentions(sentence):
            if context and mention.kind is not Kind.SOFT:
                mention = Mention(mention.text, Kind.SOFT, "context")
            if mention.kind is Kind.SOFT:
                soft_spans.append(mention.text)
            key = mention.text if LETTER_FLAG.fullmatch(mention.text) else fold(mention.text)
            if key not in mentions or mentions[key].kind is Kind.SOFT:
                mentions[key] = mention
    soft_words = {w for span in soft_spans for w in tokens(span)}
    compound = {w for m in _COMPOUND.finditer(question) for w in tokens(m.group(0))}
    terms: dict[str, Term] = {}
    for i, sentence in enumerate(sentences):
        joins = _joins(sentence)
        for word in content_words(sentence):
            context = i not in asked_idx or word in soft_words
            if word not in terms or (terms[word].context and not context):
                terms[word] = Term(word, stem(word), context, word in compound,
                                   tuple(sorted(joins.get(word, ()))))
    asked = " ".join(sentences[i] for i in asked_idx)
    return QuestionParts(tuple(mentions.values()), tuple(terms.values()), asked)


def _joins(sentence: str) -> dict[str, set[str]]:
    """Each word of ``sentence`` with its :func:`~abstain.text.joined` forms: itself written
    together with the word before it and with the word after it."""
    words = tokens(sentence)
    stemmed = [stem(w) for w in words]
    out: dict[str, set[str]] = {}
    for i, word in enumerate(words):
        for pair in (stemmed[i - 1:i + 1] if i else [], stemmed[i:i + 2]):
            if len(pair) == 2 and (found := joined(pair)):
                out.setdefault(word, set()).update(found)
    return out


def mentions_in(text: str) -> list[Mention]:
    """What running text names (identifiers, names, soft mentions), sentence by sentence, read
    as a question's mentions are: an answer's sentence names the same kinds of things."""
    return [m for sentence in split_sentences(text) for m in _mentions(sentence)]


_COMPOUND = re.compile(r"(?<![\w-])[A-Za-z]+(?:-[A-Za-z]+)+(?![\w-])")


def _mentions(sentence: str) -> list[Mention]:
    """Mentions of one sentence, in order of appearance."""
    found: list[tuple[int, Mention]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, mention: Mention) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        if _COMPARISON.search(sentence[:start]) and mention.kind is not Kind.SOFT:
            mention = Mention(mention.text, Kind.SOFT, "comparison")
        elif mention.why == "flag" and _SET_ASIDE.search(sentence[:start]):
            mention = Mention(mention.text, Kind.SOFT, "context")
        taken.append((start, end))
        found.append((start, mention))

    for match in _BACKTICK.finditer(sentence):
        inner = match.group(1)
        if _COMPARISON.search(sentence[:match.start()]) and " " in inner.strip():
            add(match.start(), match.end(), Mention(inner.strip(), Kind.SOFT, "comparison"))
            taken.append(match.span())
            continue
        pieces = [(m.start(), m.group(0)) for m in re.finditer(r"[^\s=]+", inner)]
        single = len(pieces) == 1
        command = _command(pieces)
        if command:
            end = pieces[len(command) - 1][0] + len(pieces[len(command) - 1][1])
            add(match.start(1), match.start(1) + end,
                Mention(" ".join(p for _, p in command), Kind.IDENTIFIER, "command"))
            pieces = pieces[len(command):]
        for offset, raw in pieces:
            piece = raw.strip("()[]{},;:'\"!?").removesuffix("(").rstrip(".")
            piece = re.sub(r"\(.*$", "", piece) if "(" in piece else piece
            if len(piece) < 2 or not re.search(r"[A-Za-z]", piece) or piece == "...":
                continue
            start = match.start(1) + offset
            kind = _classify(piece)
            if kind is None and single:
                kind = "quoted"
            if kind is not None:
                add(start, start + len(raw), _make(piece, kind))
        taken.append(match.span())
    for match in FILE.finditer(sentence):
        add(match.start(), match.end(), _file_or_product(match.group(0)))
    for why, pattern in PATTERNS:
        if why == "camel":  # outside code quotes a CamelCase word is a name (GitHub, QueuePool)
            continue
        for match in pattern.finditer(sentence):
            text = match.group(0)
            if why == "dotted" and is_abbreviation(text):
                continue
            if why == "flag" and (match.start() > 0 and sentence[match.start() - 1].isalnum()):
                continue
            if why == "call":
                text = text[:text.index("(")]
            add(match.start(), match.end(), _make(text, why))
    for match in _QUOTED.finditer(sentence):
        inner = match.group(1).strip()
        if len(inner) > 1 and len(inner.split()) == 1 and re.search(r"[A-Za-z]", inner):
            add(match.start(), match.end(), _make(inner, _classify(inner) or "quoted"))
    for match in _DIGIT_FLAG.finditer(sentence):  # "xargs -0", "kill -9": not "is -1"
        if match[1].lower() not in STOPWORDS | LIGHT_WORDS:
            add(match.start(2), match.end(2), Mention(match[2], Kind.NAME, "flag"))
    for start, end, name in names_in(sentence):
        add(start, end, Mention(name, Kind.NAME, "name"))
    return [m for _, m in sorted(found, key=lambda f: f[0])]


_COMMAND_WORD = re.compile(r"[A-Za-z][\w-]*")
MAX_COMMAND_WORDS = 3


def _command(pieces: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The leading words of a quoted command line (`sqlite-utils insert --csv` ->
    `sqlite-utils insert`): two or three plain words before any flag, path or argument."""
    run: list[tuple[int, str]] = []
    for offset, raw in pieces[:MAX_COMMAND_WORDS]:
        if not _COMMAND_WORD.fullmatch(raw) or FILE.fullmatch(raw):
            break
        run.append((offset, raw))
    return run if len(run) >= 2 else []


def _classify(piece: str) -> str | None:
    if FILE.fullmatch(piece):
        return "file"
    for why, pattern in PATTERNS:
        if pattern.fullmatch(piece):
            return why
    if re.fullmatch(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+", piece):
        return "hyphenated"
    return None


_PRODUCT_JS = re.compile(r"[A-Z][A-Za-z0-9]*\.js")
"""A capitalised name ending in ``.js`` is a product (Express.js, Node.js, Chart.js), not one
of the user's files (``app.js``, ``webpack.config.js``)."""


def _file_or_product(text: str) -> Mention:
    if _PRODUCT_JS.fullmatch(text):
        return Mention(text, Kind.NAME, "name")
    return Mention(text, Kind.SOFT, "file")


def _make(text: str, why: str) -> Mention:
    if why == "file":
        return _file_or_product(text)
    if why == "flag":
        # Flags are often the user's own illustration (`--name Bob`, "-v / -vv / -vvv"):
        # like names, they must exist in the workspace; -vv counts as -v.
        return Mention(re.sub(r"^-(\w)\1+$", r"-\1", text), Kind.NAME, why)
    return Mention(text, Kind.IDENTIFIER, why)


# -- the names it asks about, as documentation writes them ----------------------
# Its identifiers, flags, and option names ("log-level", "audit-command") that running text does
# not take for identifiers and a reference page writes as a section's whole heading. Read by the
# stated defaults (abstain.rerank.defaults), retrieval's depth and the ranking of evidence whose
# section an asked name heads (abstain.align.checks.headed_first).

WRITTEN_OPTION = re.compile(rf"(?<![\w.-])(?:{OPTION_NAME.pattern})(?![\w-])")
"""An option's name written in running text, whole (not part of a longer name or path)."""
_PARENTHESIS = re.compile(r"\([^)]*\)")
_ARGUMENT = re.compile(r"(?:=|\s)(?:<[^>]*>|\[[^\]]*\]|[A-Z][A-Z0-9_-]*\b)")
_FLAG_HEADING = re.compile(r"--?[\w-]+(?:\s*[,/]\s*--?[\w-]+)*")


@dataclass(frozen=True, slots=True)
class AskedName:
    """A name the question asks about, as it writes it."""

    text: str
    cased: bool = False
    """A one-letter flag: its case tells it from another (``-l`` is not ``-L``)."""
    heading_only: bool = False
    """Written as an option's name but not taken for an identifier ("log-level", or
    "read-only"): it is the asked name only as a section's whole heading."""

    @property
    def pattern(self) -> re.Pattern[str]:
        """The name whole: not inside a longer one (``trailing_comma`` is not
        ``match_block_trailing_comma``'s), qualified or not (``PngImagePlugin.MAX_TEXT_MEMORY``
        is ``MAX_TEXT_MEMORY``)."""
        return re.compile(rf"(?<![\w-]){re.escape(self.text)}(?![\w-])",
                          0 if self.cased else re.IGNORECASE)

    def ends(self, text: str) -> list[int]:
        """Where the name ends in ``text`` (character offsets)."""
        return [m.end() for m in self.pattern.finditer(text)]

    def heads(self, heading: str) -> bool:
        """Whether ``heading`` is the name's own: its words and no other, but for a
        parenthesis after them ("imports_granularity", "Line Length" for ``line_length``,
        "max_width (integer)"); a flag's, its forms and their argument ("-M,
        --max-columns=NUM", "--path-separator=SEPARATOR"), a one-letter flag as written."""
        bare = _PARENTHESIS.sub(" ", heading)
        if self.text.startswith("-"):  # a flag's heading: "-M, --max-columns=NUM"
            flags = _FLAG_HEADING.fullmatch(_ARGUMENT.sub("", bare).strip())
            return flags is not None and any(self.pattern.fullmatch(f) for f in
                                             re.split(r"[\s,/]+", flags.group(0)))
        return bool(tokens(bare)) and tokens(bare) == tokens(self.text)


def asked_names(mentions: tuple[Mention, ...], asked: str) -> tuple[AskedName, ...]:
    """The names a question asks about: identifiers but versions, flags, and
    option names written as a reference heading writes them ("log-level", which running
    text does not take for an identifier: :data:`~abstain.text.grammar.OPTION_NAME`; read
    only as a heading, :attr:`AskedName.heading_only`). Read once per question, as
    :attr:`abstain.question.Question.asked_names`."""
    names = [AskedName(m.text, cased=LETTER_FLAG.fullmatch(m.text) is not None)
             for m in mentions
             if (m.kind is Kind.IDENTIFIER and m.why != "version") or m.why == "flag"
             or m.letter_flag]
    written = {fold(n.text) for n in names}
    for m in WRITTEN_OPTION.finditer(asked):
        if fold(m.group(0)) not in written and not is_abbreviation(m.group(0)):
            names.append(AskedName(m.group(0), heading_only=True))
            written.add(fold(m.group(0)))
    return tuple(names)
