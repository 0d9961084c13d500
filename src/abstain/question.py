"""The question, read once: :class:`Question`.

``validate`` reads the cleaned question text with :meth:`Question.parse` and the trace
carries the result to every later stage — retrieval (its keyword query), the score (its
content words), the gate (its mentions, terms, answer type and comparison sides), the
reader, the generator and the verifier. Nothing downstream parses the question text again;
a new text (a concept's preferred label put in, :mod:`abstain.terminology`) is a new
question, read by the same constructor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from abstain.asked import (
    AnswerType,
    asks_a_calendar_date,
    compared,
    expected_type,
    measured,
    refers_back,
)
from abstain.mentions import AskedName, Kind, Mention, Term, asked_names, parse_question
from abstain.query import KeywordQuery
from abstain.text import content_words, function_words, stems, tokens

__all__ = ["Question"]


@dataclass(frozen=True, slots=True)
class Question:
    """What a question says, names and asks for; build one with :meth:`parse`."""

    text: str
    """The cleaned question."""
    language: str
    """ISO 639-1 code (:func:`abstain.messages.detect_language`)."""
    asked: str
    """The asked sentences, the part whose answer type counts (:mod:`abstain.mentions`)."""
    mentions: tuple[Mention, ...]
    """Identifiers, names and soft mentions (:mod:`abstain.mentions`)."""
    terms: tuple[Term, ...]
    """The content words with their stems, each marked asked or context."""
    words: tuple[str, ...]
    """The content words of the whole text, in order (:func:`abstain.text.content_words`)."""
    stems: tuple[str, ...]
    """The stem of every word of the text, in order (:func:`abstain.text.stems`)."""
    answer_type: AnswerType | None
    """The type of answer the asked sentences ask for (:func:`abstain.asked.expected_type`)."""
    measure: frozenset[str]
    """Stems of what a how-many question counts (:func:`abstain.asked.measured`)."""
    numbers: frozenset[str]
    """The asked sentences' own numbers: they answer nothing."""
    calendar: bool
    """It asks for a year, date, day or month (a version does not answer it)."""
    sides: tuple[frozenset[str], ...]
    """The two sides of a comparison, as stems (:func:`abstain.asked.compared`); () if none."""
    keywords: KeywordQuery
    """What the keyword arms search (:class:`abstain.query.KeywordQuery`)."""
    content_count: int = 0
    """How many words of it are content words, a hyphenated word counted once ("Is it
    thread-safe?": 1): how much it says of what it asks about."""
    refers_to: str | None = None
    """The words by which it refers to something it does not name ("it" in "How do I fix
    it?", "What about" in "What about the second one?"): a follow-up read without its
    conversation (:func:`abstain.asked.refers_back`; questions in en, de, fr, es or nl that
    name no identifier or name). None when it names what it asks about."""
    asked_names: tuple[AskedName, ...] = field(default=(), init=False)
    """The names it asks about as documentation writes them: identifiers but versions, flags,
    and option names a reference heading writes whole (:func:`abstain.mentions.asked_names`),
    read from its mentions and asked sentences whenever a question is made, so that a copy
    with other mentions (``dataclasses.replace``) never carries stale ones."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "asked_names", asked_names(self.mentions, self.asked))

    @classmethod
    def parse(cls, text: str, language: str = "en") -> Question:
        """Read ``text`` (already cleaned: :func:`abstain.text.clean`): the one place a
        question's text is parsed."""
        parts = parse_question(text)
        asked = parts.asked
        said = function_words(language) if language != "en" else frozenset()  # "wann", "quel"
        terms = tuple(t for t in parts.terms if t.word not in said)
        held = {t.word for t in terms}
        content = sum(any(w in held for w in tokens(word))  # "thread-safe" is one word
                      for word in text.split())
        named = any(m.kind in (Kind.IDENTIFIER, Kind.NAME) for m in parts.mentions)
        return cls(
            text=text, language=language, asked=asked, mentions=parts.mentions,
            terms=terms,
            words=tuple(w for w in content_words(text) if w not in said),
            stems=tuple(stems(text)),
            answer_type=expected_type(asked), measure=measured(asked),
            numbers=frozenset(t for t in tokens(asked) if t.isdigit()),
            calendar=asks_a_calendar_date(asked), sides=compared(asked),
            keywords=KeywordQuery.of(text, [m.text for m in parts.mentions if m.letter_flag]),
            content_count=content,
            refers_to=None if named else refers_back(asked, content, language))

    @property
    def identifiers(self) -> tuple[Mention, ...]:
        return tuple(m for m in self.mentions if m.kind is Kind.IDENTIFIER)

    @property
    def letter_flags(self) -> tuple[Mention, ...]:
        """The one-letter command-line flags it names (``-l``, ``-L``): no word search finds
        them, so they are looked up where a definition list or table defines them."""
        return tuple(m for m in self.mentions if m.letter_flag)

    @property
    def names(self) -> tuple[Mention, ...]:
        return tuple(m for m in self.mentions if m.kind is Kind.NAME)
