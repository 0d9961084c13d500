"""A workspace's controlled vocabulary (SKOS concepts): the records and the store protocol.

Kept beside the stores (as :mod:`abstain.stores.log_base` is for the query log) so that each
store's vocabulary module imports these without importing what loads vocabularies.

A concept is looked up by the *key* of one of its labels: the label's folded words joined by
single spaces (``Congestion-Management Zone`` -> ``congestion management zone``), and a
label spelled as single letters joined up (``C.M.Z.`` -> ``cmz``), so that an acronym is
one key however it is dotted. :func:`label_key` is the one definition, used to store
labels and to read questions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from abstain.text import STOPWORDS, tokens


class LabelKind(StrEnum):
    PREF = "pref"
    ALT = "alt"
    HIDDEN = "hidden"
    NOTATION = "notation"


@dataclass(frozen=True, slots=True)
class LangText:
    """A literal with its language tag ("" when the vocabulary gave none)."""

    text: str
    lang: str = ""


@dataclass(frozen=True, slots=True)
class Concept:
    """One SKOS concept with what abstain reads of it, in every language it has."""

    uri: str
    pref_labels: tuple[LangText, ...] = ()
    alt_labels: tuple[LangText, ...] = ()
    hidden_labels: tuple[LangText, ...] = ()
    definitions: tuple[LangText, ...] = ()
    scope_notes: tuple[LangText, ...] = ()
    broader: tuple[str, ...] = ()
    narrower: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    notations: tuple[str, ...] = ()

    def pref_label(self, lang: str = "") -> str:
        """The preferred label in ``lang``, else in English, else any; the URI's last
        segment when the concept has none."""
        found = pick(self.pref_labels, lang)
        return found.text if found else self.uri.rstrip("/#").rsplit("/", 1)[-1]

    def definition(self, lang: str = "") -> LangText | None:
        return pick(self.definitions, lang)

    def labels(self) -> Iterator[tuple[LabelKind, LangText]]:
        for kind, texts in ((LabelKind.PREF, self.pref_labels), (LabelKind.ALT, self.alt_labels),
                            (LabelKind.HIDDEN, self.hidden_labels)):
            for text in texts:
                yield kind, text
        for notation in self.notations:
            yield LabelKind.NOTATION, LangText(notation)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted({t.lang for _, t in self.labels() if t.lang}
                            | {t.lang for t in self.definitions if t.lang}))

    def to_json(self) -> dict[str, Any]:
        def texts(items: tuple[LangText, ...]) -> list[list[str]]:
            return [[t.text, t.lang] for t in items]

        return {"uri": self.uri, "pref_labels": texts(self.pref_labels),
                "alt_labels": texts(self.alt_labels), "hidden_labels": texts(self.hidden_labels),
                "definitions": texts(self.definitions), "scope_notes": texts(self.scope_notes),
                "broader": list(self.broader), "narrower": list(self.narrower),
                "related": list(self.related), "notations": list(self.notations)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Concept:
        def texts(key: str) -> tuple[LangText, ...]:
            return tuple(LangText(str(t), str(lang)) for t, lang in data.get(key) or ())

        def uris(key: str) -> tuple[str, ...]:
            return tuple(str(u) for u in data.get(key) or ())

        return cls(str(data["uri"]), texts("pref_labels"), texts("alt_labels"),
                   texts("hidden_labels"), texts("definitions"), texts("scope_notes"),
                   uris("broader"), uris("narrower"), uris("related"), uris("notations"))


def pick(texts: Sequence[LangText], lang: str) -> LangText | None:
    """The text in ``lang``, else untagged or English, else the first one."""
    for wanted in (lang, "", "en"):
        for text in texts:
            if text.lang.split("-")[0].lower() == wanted:
                return text
    return texts[0] if texts else None


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One label of a concept as stored and looked up."""

    key: str
    initials: str
    kind: LabelKind
    lang: str
    label: str


def label_key(text: str) -> str:
    """The lookup key of a label or of a span of a question (see the module docstring)."""
    words = tokens(text)
    if len(words) > 1 and all(len(w) == 1 and w.isalpha() for w in words):
        return "".join(words)
    return " ".join(words)


def initials(key: str) -> str:
    """First letters of a key of two or more words (``congestion management zone`` -> ``cmz``),
    what an unknown acronym is compared with; "" for one word."""
    words = key.split()
    return "".join(w[0] for w in words) if len(words) > 1 else ""


def label_rows(concept: Concept) -> list[LabelRow]:
    """The concept's labels, one row per distinct (key, kind, lang)."""
    rows: dict[tuple[str, str, str], LabelRow] = {}
    for kind, text in concept.labels():
        key = label_key(text.text)
        if key:
            rows.setdefault((key, kind, text.lang),
                            LabelRow(key, initials(key), kind, text.lang, text.text))
    return list(rows.values())


def label_words(key: str) -> list[str]:
    """The words of a key that make two labels alike: 3+ letters, not stopwords."""
    return [w for w in dict.fromkeys(key.split()) if len(w) >= 3 and w not in STOPWORDS]


def concept_words(concept: Concept) -> list[str]:
    """Every such word of the concept's labels, once (what near concepts are found by)."""
    return list(dict.fromkeys(w for r in label_rows(concept) for w in label_words(r.key)))


@dataclass(frozen=True, slots=True)
class VocabularyInfo:
    """A vocabulary loaded into a workspace, and where it came from."""

    workspace: str
    name: str
    kind: str
    """``file`` or ``skosmos``."""
    location: str
    """The file's path, or the SKOSMOS server's base URL."""
    vocid: str = ""
    """The SKOSMOS vocabulary id ("" for a file)."""
    concepts: int = 0
    languages: tuple[str, ...] = ()
    loaded_at: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"workspace": self.workspace, "name": self.name, "kind": self.kind,
                "location": self.location, "vocid": self.vocid, "concepts": self.concepts,
                "languages": list(self.languages), "loaded_at": self.loaded_at}


@dataclass(frozen=True, slots=True)
class LabelMatch:
    """A stored label that matched a key, with its concept's URI and vocabulary."""

    vocabulary: str
    uri: str
    key: str
    kind: LabelKind
    lang: str
    label: str


    @classmethod
    def of_row(cls, row: Sequence[Any]) -> LabelMatch:
        """A row of either store's :data:`MATCH_SELECT`."""
        return cls(row[0], row[1], row[2], LabelKind(row[3]), row[4], row[5])

    def order(self) -> tuple[str, str, str, str]:
        """How both stores sort the labels they found: by vocabulary, concept, kind, lang."""
        return self.vocabulary, self.uri, self.kind.value, self.lang


MATCH_SELECT = "SELECT vocabulary, uri, key, kind, lang, label FROM concept_labels"
"""The columns of a :class:`LabelMatch`, as both stores select them."""
MAX_CANDIDATES = 100
"""Candidate labels :meth:`VocabularyStore.similar_labels` takes per way of being alike."""


class VocabularyStore(Protocol):
    """A store's vocabularies; every read and write names its workspace."""

    def replace_vocabulary(self, info: VocabularyInfo, concepts: Sequence[Concept]) -> None:
        """In one transaction: drop the workspace's vocabulary of that name (if any) and
        store this one, with every concept and label."""
        ...

    def vocabularies(self, workspace: str) -> list[VocabularyInfo]:
        """The workspace's vocabularies, by name."""
        ...

    def remove_vocabulary(self, workspace: str, name: str) -> bool: ...

    def find_labels(self, workspace: str, keys: Sequence[str]) -> list[LabelMatch]:
        """Every label of the workspace whose key is one of ``keys`` (exact match)."""
        ...

    def concepts(self, workspace: str, uris: Sequence[str]) -> dict[str, Concept]:
        """The workspace's concepts with these URIs (the first vocabulary's, by name)."""
        ...

    def similar_labels(self, workspace: str, key: str) -> list[LabelMatch]:
        """Candidate labels near ``key``, each way up to :data:`MAX_CANDIDATES` (all
        indexed): labels whose initials are the key; the labels next to the key in
        alphabetical order among those starting like it (:func:`neighbourhood`); and the
        labels of the concepts sharing most of its words (:func:`label_words`)."""
        ...


def neighbourhood(key: str) -> tuple[str, str]:
    """The range of keys that start like ``key`` (2 letters; 3 from 5: acronyms differ
    early, CMQZ / CMZ), as ``(low, high)`` bounds: ``low <= k < high``."""
    head = key[:2] if len(key) < 5 else key[:3]
    return head, head + "\U0010ffff"
