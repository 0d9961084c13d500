"""Reading a stated default: "what does X default to?" is answered where X's default is stated.

Reference documentation states an option's default in a few set forms — a field of its
entry ("Default value: 100", "Default | error", "name: PYENV_ROOT; default: ~/.pyenv"), a
phrase after its name ("a detailed_validation flag (defaulting to true)", "RUSTUP_HOME
(default: ~/.rustup)", "tasks.dedupe … defaults to True"), a keyword of a signature
("Consumer(huey, workers=1, worker_type='thread')") — and the reader, trained on prose
sentences, reads such a field as no answer: "Default value: Preserve" under the
heading ``imports_granularity`` reads 0.003 for "What is the default value of rustfmt's
imports_granularity option?". The form is read here instead. A window **answers** a
question that asks for a named thing's default (:func:`asks_default`) when it states a
default (:data:`STATED`) and the asked name is what the default is of: the name stands a
few words before the statement with no other name between, or it is the heading of the
window's section ("-M, --max-columns=NUM" for ``--max-columns``), or the window is a
signature that gives it a value — of the type of answer asked ("how long …" is not answered
by "Default: false") — and its passage (its
chunk, page title, headings and file name) holds every rare word the question asks with: a
question that qualifies the default ("… when running with the gevent pool") is about a case
the passage that never names it does not state (a word rare in the workspace, not the
product's name).

A window that states the default of something else ("--notification-email-server-port …
Defaults to 25." for a question about ``--notification-email-subjecttag``) is not read so:
the reader's reading stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from abstain.align.types import AskedType
from abstain.asked import AnswerType
from abstain.mentions import WRITTEN_OPTION, AskedName
from abstain.question import Question
from abstain.rerank.rows import asked_property
from abstain.text import content_words, english_rarity, split_sentences, stem, tokens
from abstain.text.grammar import (
    FLAG,
    VERSION_NUMBER,
    find_identifiers,
)

ASKS = re.compile(
    r"(?<![\w.-])default(?:s|ed)?(?![\w-])"
    r"|\bif\s+(?:i|you|we)\s+(?:don'?t|do\s+not|never|didn'?t)\s+(?:pass|set|give|specify"
    r"|configure|change|provide|add)\b"
    r"|\bout\s+of\s+the\s+box\b|\bunless\s+(?:i|you|we)\s+(?:set|change|pass)\b",
    re.IGNORECASE)
"""A question that asks what something is when left unset: "what is the default …", "what
does X default to", "… if I don't pass -j", "out of the box"."""
_NOT_ASKING = re.compile(r"\b(?:why|when|how\s+(?:do|can|could|should|would)\s+(?:i|we|you)"
                         r"\s+(?:change|override|disable|turn|set|make|keep))\b", re.IGNORECASE)
""""Why is X on by default?", "So why does X default to 4?", "When will X default to true?",
"How would I change the default …?": not what the default is."""
_ASKING = r"(?:what|which|how|why|where|when|does|do|is|are|can|should|will)\b"
_FIRST_ASK = re.compile(rf"\b{_ASKING}", re.IGNORECASE)
_ALSO_ASKS = re.compile(rf"(?:,|\band\b|;)\s*(?:and\s+)?{_ASKING}", re.IGNORECASE)
""""… by default, and how do I turn it off?", "What is X for and what does it default to?":
a question that asks more than the default, after its first ask ("In the user guide, what
is the default …" asks only that)."""
_ASKING_WORDS = frozenset({"default", "defaults", "value", "values"})
"""The words that ask for a default: no case of it."""

STATED = re.compile(
    r"(?<![\w.-])default(?:\s+value)?\s*[:|]\s*(?![\w-]+:)[^\s|;]"
    r"|(?<![\w.-])default(?:s|ed|ing)\s+to\s+\S"
    r"|(?<![\w.-])(?<!\bthe\s)default\s+to\s+\S"
    r"|(?<![\w.-])default(?:\s+value)?\s+is\s+\S"
    r"|[(\[]\s*default\s*(?:[:=]\s*|\s+(?:is\s+)?)[^\s)\]]"
    r"|(?<![\w.-])(?!(?:the|a|an)\b)[\w`'\"./~-]+\s*\(default[);,]",
    re.IGNORECASE)
"""A default stated with its value: "Default: 60", "Default value | 100", "defaults to
True", "defaulting to false", "the default is 6", "(default: ~/.rustup)", "(default 100)",
"[default: 10]", "json (default)". Not "by default", which states no value of its own; not
a key that holds others ("default: class: …"), "change the default to json", "the default
was 8", "the [default] profile", "the (default) backend"."""
_VERSION = re.compile(rf"v?{VERSION_NUMBER}")
_SIGNED = re.compile(r"\s*(?:[\w.]+\s+)?(?:(?:async\s+)?def\s+|class\s+)?[\w.]+\s*")
"""What opens a signature before its parenthesis: its name, after a heading word."""
_POINTER = re.compile(r"default(?:\s+value)?\s*[:|]?\s*see\b", re.IGNORECASE)
""""Default: see wiki" states no value."""
NEAR = 12
"""Words at most between the asked name and the statement of its default."""
INFORMATIVE = 0.5
"""An asked word at least this informative (:meth:`abstain.align.Focus.weight`: rare in the
workspace and in English) that the window's passage lacks makes the question one about
another case ("gevent", "non-ascii"); the product's own name, on most pages, is not one."""


def asks_only_default(question: Question) -> bool:
    """Whether the question asks nothing but the default (:func:`asks_default`): its answer
    is the statement alone."""
    first = _FIRST_ASK.search(question.asked)
    return asks_default(question) and not any(
        first is None or m.start() > first.start()
        for m in _ALSO_ASKS.finditer(question.asked))


def several_asked(question: Question) -> tuple[AskedName, ...]:
    """The names the question asks the defaults of together ("the defaults of MAX_TEXT_CHUNK
    and MAX_TEXT_MEMORY"): asked names with only "and", "or", "&", "/" or a comma between
    them, "the" or "of" after it; () when it asks of one."""
    names = question.asked_names
    together = [n for n in names for other in names if other != n and re.search(
        rf"{n.pattern.pattern}\s*(?:,|and|or|&|/)\s*(?:the\s+|of\s+)?{other.pattern.pattern}"
        rf"|{other.pattern.pattern}\s*(?:,|and|or|&|/)\s*(?:the\s+|of\s+)?{n.pattern.pattern}",
        question.asked, re.IGNORECASE)]
    return tuple(dict.fromkeys(together))


def asks_default(question: Question) -> bool:
    """Whether the question asks what a thing it names is when left unset: in a sentence
    that asks ("I kept the default worker class. What happens?" does not)."""
    asking = [s for s in split_sentences(question.asked)
              if s.rstrip().endswith("?") or "?" not in question.asked]
    return (any(ASKS.search(s) for s in asking)
            and not any(_NOT_ASKING.search(s) for s in asking)
            and question.answer_type not in (AnswerType.VERSION, AnswerType.DATE)
            and bool(question.asked_names))


def states_default_of(question: Question, window: str, heading: str, passage: str,
                      weight: Callable[[str], float] = english_rarity) -> bool:
    """Whether ``window`` (of a section headed ``heading``, in ``passage``: its chunk with
    the page's title, headings and file name) states the default of a name the question
    asks about, of the type of answer it asks for, and of no case the passage never names
    (``weight``: how informative an asked word is, :meth:`abstain.align.Focus.weight`;
    English rarity alone without the workspace's statistics)."""
    names = question.asked_names
    return (not _another_case(question, names, passage, weight)
            and _states(names, AskedType.of(question), window, heading))


def _states(names: Sequence[AskedName], typed: AskedType | None, window: str,
            heading: str) -> bool:
    """:func:`states_default_of` but for the case, which is its passage's
    (:func:`_another_case`, read once a chunk)."""
    stated = [m.start() for m in STATED.finditer(window)
              if not _POINTER.search(window, m.start(), m.end() + 8)]
    named = [n for n in names if not n.heading_only]
    signed = any(_in_signature(name, window) for name in named)
    if not (stated or signed):
        return False
    if typed is not None and not typed.carried_by(window):
        return False  # "how long … by default": a duration, not "Default: false"
    if signed or any(_states_its(window, end, at, names) for name in named
                     for end in name.ends(window) for at in stated):
        return True
    return any(name.heads(heading) for name in names) and any(
        _states_its(window, 0, at, names, near=None) for at in stated)


def _in_signature(name: AskedName, window: str) -> bool:
    """Whether ``window`` is a signature that gives the asked parameter its default
    ("Consumer(huey, workers=1, …, worker_type='thread', …)", after its heading; "def
    connect(host: str, timeout: float = 5.0)"); not a call that passes it ("consumer =
    huey.create_consumer(worker_type='thread')", "app.run(use_reloader=True)", ">>> f(x=1)",
    "Use … or msgspec.to_builtins(obj, str_keys=True)"): a signature defines, so it opens
    with ``def`` or ``class``, or names a parameter with no value."""
    opened = window.find("(")
    if opened < 0 or not _SIGNED.fullmatch(window[:opened]):
        return False
    closed = _closing(window, opened)
    params = [p.strip() for p in window[opened + 1:closed].split(",")]
    defines = (re.search(r"\b(?:def|class)\s", window[:opened]) is not None
               or any(p and "=" not in p and p not in ("*", "/") for p in params))
    return defines and any(re.fullmatch(rf"{name.pattern.pattern}\s*(?::[^=]*)?=\s*\S.*", p,
                                        name.pattern.flags | re.DOTALL) for p in params)


def _closing(text: str, opened: int) -> int:
    """Where the parenthesis opened at ``opened`` closes (the end of ``text`` when it does
    not): a parameter's own call ("pool=Pool(size=2)") is inside it."""
    depth = 0
    for at in range(opened, len(text)):
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        if depth == 0:
            return at
    return len(text)


def _states_its(window: str, name_end: int, at: int, names: Sequence[AskedName], *,
                near: int | None = NEAR) -> bool:
    """Whether the default stated at character ``at`` is of the name ending at ``name_end``
    (0: of the section's heading): it follows within ``near`` words, and no other name — a
    flag, an identifier, an option's name that is not one asked — stands between
    ("--lua-globals output keys … --lua-prefix string prefix (default "return ")"; "When
    use_small_heuristics is on, fn_call_width defaults to 60%" under ``max_width``)."""
    between = window[name_end:at]
    if name_end > at or (near is not None and len(tokens(between)) > near):
        return False
    for other in (*FLAG.findall(between), *find_identifiers(between),
                  *(m.group(0) for m in WRITTEN_OPTION.finditer(between))):
        if not _VERSION.fullmatch(other) and not any(n.pattern.fullmatch(other) for n in names):
            return False  # "New in version 5.5." names nothing
    return True


def _another_case(question: Question, names: Sequence[AskedName], passage: str,
                  weight: Callable[[str], float]) -> bool:
    """Whether the question asks with an informative word that ``passage`` lacks, not of an
    asked name nor of what it asks for ("What digest *algorithm* does … use by default")."""
    held = {stem(t) for t in tokens(passage)}
    held |= {stem(t) for name in names for t in tokens(name.text)}
    held |= {stem(w) for w in (*asked_property(question), *_ASKING_WORDS)}
    return any(weight(w) >= INFORMATIVE and stem(w) not in held
               for w in content_words(question.asked))


def read(question: Question, chunks: Sequence[tuple[Sequence[str], str, str]],
         weight: Callable[[str], float] = english_rarity) -> list[list[bool]]:
    """Per chunk — its windows, its section's heading, its passage — whether each window
    answers by stating the asked name's default (:func:`states_default_of`)."""
    if not asks_default(question):
        return [[False] * len(windows) for windows, _, _ in chunks]
    names, typed = question.asked_names, AskedType.of(question)
    return [[False] * len(windows) if _another_case(question, names, passage, weight)
            else [_states(names, typed, w, heading) for w in windows]
            for windows, heading, passage in chunks]
