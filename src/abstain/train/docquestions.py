"""Questions of the kinds users ask of documentation, templated from the docs' structure.

No language model writes them: each comes from a heading or a sentence pattern of a section,
in users' register (lower case, short, "how do i …"), with several templates per kind drawn
by a seeded generator. Each question names the window that answers it (``Ask.window``) and
what it asks about (``Ask.target``), so that near misses can be made from it.

Kinds: ``howto`` (task headings), ``what`` (an identifier's reference section), ``topic``
(other headings), ``faq`` / ``why`` (headings that are questions), ``default``, ``values``,
``envvar``, ``since`` (``versionadded`` notes), ``released`` (changelog dates).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

CODE_ID = re.compile(r"(?<![\w/.-])(--?[a-z][\w-]*|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?:\(\))?|"
                     r"[a-z_][a-z0-9]*_[a-z0-9_]+(?:\(\))?|[a-z]\w*\(\)|[A-Z][a-z]+[A-Z]\w*)"
                     r"(?![\w-])")
"""An identifier as documentation writes one: ``--flag``, ``pkg.func``, ``snake_case``,
``call()``, ``CamelCase``."""
ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b")
VERSION = re.compile(r"\bv?(\d+\.\d+(?:\.\d+)?(?:[ab]\d+|rc\d+)?)\b")
DATE = re.compile(r"\b(?:\d{4}-\d{2}-\d{2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
                  r"[a-z]*\.? \d{1,2},? \d{4}|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
                  r"oct|nov|dec)[a-z]* \d{4})\b", re.I)
DEFAULT = re.compile(r"\bdefaults?\b(?:\s+(?:value\s+)?(?:is|to|of|:|=)|\s*:|\s+being)|"
                     r"\(default[:=]?\s", re.I)
VALUES = re.compile(r"\b(?:one of|possible values|valid values|allowed values|accepted values|"
                    r"can be (?:either|one of|set to)|must be (?:one of|either)|choices)\b", re.I)
CODE_CHARS = re.compile(r"[{}()\[\];=<>$]")
TOPIC_RATE = 0.5
"""Share of plain noun headings ("Error handling") asked about: the weakest questions."""
ENTRY = re.compile(r"^(?:- )?(?P<name>--?[a-z][\w-]*(?:[ =][A-Z_]+)?|[\w.]+(?:\(\))?)"
                   r"(?:\s*(?:\||:| - | – )\s*)(?P<rest>.{12,})", re.S)
"""A reference entry: a list item, table row or definition that starts with a name."""
_GERUNDS = {
    "adding": "add", "building": "build", "caching": "cache", "changing": "change",
    "checking": "check", "choosing": "choose", "configuring": "configure",
    "connecting": "connect", "controlling": "control", "converting": "convert",
    "creating": "create", "customizing": "customize", "customising": "customise",
    "debugging": "debug", "declaring": "declare", "defining": "define", "deleting": "delete",
    "deploying": "deploy", "disabling": "disable", "enabling": "enable",
    "extending": "extend", "filtering": "filter", "formatting": "format",
    "generating": "generate", "getting": "get", "handling": "handle", "ignoring": "ignore",
    "implementing": "implement", "importing": "import", "installing": "install",
    "integrating": "integrate", "loading": "load", "logging": "log", "making": "make",
    "managing": "manage", "migrating": "migrate", "mocking": "mock", "overriding": "override",
    "packaging": "package", "passing": "pass", "publishing": "publish", "reading": "read",
    "registering": "register", "removing": "remove", "rendering": "render",
    "returning": "return", "running": "run", "saving": "save", "searching": "search",
    "sending": "send", "serving": "serve", "setting": "set", "sharing": "share",
    "specifying": "specify", "starting": "start", "stopping": "stop", "storing": "store",
    "streaming": "stream", "testing": "test", "updating": "update", "upgrading": "upgrade",
    "uploading": "upload", "using": "use", "validating": "validate", "working": "work",
    "writing": "write", "excluding": "exclude", "including": "include", "securing": "secure",
    "scaling": "scale"}
_VERBS = frozenset(_GERUNDS.values()) | {"avoid", "bind", "call", "find", "keep", "list",
                                          "pin", "print", "query", "reuse", "skip", "split",
                                          "tell", "turn", "wrap", "send", "show", "sort"}
_HOWTO = ("how do i {t}", "how can i {t}", "how to {t}", "how do you {t}", "how would i {t}",
          "what's the way to {t}", "is there a way to {t}", "i want to {t}, how?",
          "how do i {t} with {p}", "in {p}, how do i {t}")
_TOPIC = ("how does {t} work", "what is {t}", "tell me about {t}", "{t}?", "explain {t}",
          "how do i use {t}", "what should i know about {t}", "{t} in {p}?")
_WHAT = ("what does {t} do", "what is {t}", "what is {t} for", "{t}?", "explain {t}",
         "what's the purpose of {t}", "what does {t} mean", "how does {t} work",
         "when should i use {t}", "what is {t} used for in {p}")
_DEFAULT = ("what is the default {t}", "what does {t} default to", "default value of {t}?",
            "if i don't set {t}, what value does it use", "what's {t} set to by default",
            "{t} default?")
_VALUES = ("what values can {t} take", "which values are allowed for {t}",
           "what can i set {t} to", "valid options for {t}?", "what are the choices for {t}")
_ENVVAR = ("what does the {t} environment variable do", "what is {t} for",
           "what's the {t} env var", "how is {t} used", "{t} env variable?")
_SINCE = ("since which version is {t} available", "when was {t} added",
          "what version added {t}", "which {p} version introduced {t}")
_RELEASED = ("when was {p} {t} released", "release date of {p} {t}?",
             "when did {t} come out", "what date was version {t} released")
_FAQ_PREFIX = ("", "", "", "faq: ", "quick question: ", "{p}: ")


@dataclass(frozen=True)
class Ask:
    question: str
    kind: str
    window: int
    """Index of the answering window in the section's windows."""
    target: str = ""
    """The identifier, version or task the question asks about (empty: none)."""


def is_code(window: str) -> bool:
    """A window that is mostly code: many code characters, few plain words."""
    words = window.split()
    plain = sum(1 for w in words if w.isalpha())
    return len(CODE_CHARS.findall(window)) > 6 or plain < 0.45 * max(1, len(words))


def first_prose(windows: list[str]) -> int | None:
    for i, w in enumerate(windows[:4]):
        if not is_code(w) and len(w.split()) >= 6:
            return i
    return None


def _pick(templates: tuple[str, ...], rng: random.Random, **values: str) -> str:
    return rng.choice(templates).format(**values)


def _task(heading: str) -> str | None:
    """A heading as a task ("Installing pipx" → "install pipx"), or None."""
    words = heading.lower().rstrip(".:!").split()
    if not 1 <= len(words) <= 9:
        return None
    if words[0] in _GERUNDS:
        return " ".join([_GERUNDS[words[0]], *words[1:]])
    if words[0] in _VERBS:
        return " ".join(words)
    return None


def heading_question(path: tuple[str, ...], windows: list[str], project: str,
                     rng: random.Random) -> Ask | None:
    """The question the section's heading asks or implies, answered by its first prose."""
    if not path:
        return None
    heading = " ".join(path[-1].split()).strip()
    at = first_prose(windows)
    if at is None or not heading or len(heading) > 90:
        return None
    low = heading.lower()
    p = project
    if VERSION.fullmatch(low.split()[0].lstrip("v")) if low else False:
        return None  # a changelog heading: see fact_questions
    if low.endswith("?"):
        kind = "why" if low.startswith("why") else "faq"
        prefix = rng.choice(_FAQ_PREFIX).format(p=p)
        text = low if rng.random() < 0.7 else low.rstrip("?")
        return Ask(prefix + text, kind, at, heading)
    if low.startswith(("how to ", "how do ", "how can ")):
        return Ask(low, "howto", at, low)
    if low.startswith("why "):
        return Ask(low + "?", "why", at, low)
    if CODE_ID.fullmatch(heading.split("(")[0].strip()) or CODE_ID.fullmatch(heading):
        name = heading.split()[0]
        return Ask(_pick(_WHAT, rng, t=name, p=p), "what", at, name.rstrip("()"))
    task = _task(heading)
    if task:
        return Ask(_pick(_HOWTO, rng, t=task, p=p), "howto", at, task)
    if 2 <= len(low.split()) <= 5 and re.fullmatch(r"[a-z0-9 '/-]+", low) \
            and rng.random() < TOPIC_RATE \
            and low not in {"introduction", "overview", "summary", "license", "contents",
                            "changelog", "changes", "credits", "authors", "links", "index",
                            "indices and tables", "table of contents", "see also", "notes"}:
        return Ask(_pick(_TOPIC, rng, t=low, p=p), "topic", at, low)
    return None


def fact_questions(path: tuple[str, ...], windows: list[str], project: str,
                   rng: random.Random) -> list[Ask]:
    """Questions a single window states the answer to: a default, allowed values, what an
    environment variable does, the version that added something, a release date."""
    out: list[Ask] = []
    heading = path[-1] if path else ""
    own = heading.split()[0].rstrip("()") if heading and CODE_ID.fullmatch(
        heading.split("(")[0].strip()) else ""
    version = VERSION.match(heading.lower().lstrip("v").split(" ")[0]) if heading else None
    for i, w in enumerate(windows):
        cue = DEFAULT.search(w) or VALUES.search(w)
        if cue and not is_code(w):
            name = _named_before(w, cue.start(), own)
            kind = "default" if DEFAULT.search(w) else "values"
            if name:
                out.append(Ask(_pick(_DEFAULT if kind == "default" else _VALUES, rng, t=name),
                               kind, i, name))
        entry = ENTRY.match(w)
        if entry and CODE_ID.fullmatch(entry.group("name").split()[0].split("=")[0]) \
                and not is_code(entry.group("rest")):
            t = entry.group("name").split()[0].split("=")[0].rstrip("()")
            out.append(Ask(_pick(_WHAT, rng, t=t, p=project), "what", i, t))
        envs = ENV_VAR.findall(w)
        if envs and re.search(r"environment|env var|\benv\b", w, re.I):
            out.append(Ask(_pick(_ENVVAR, rng, t=envs[0]), "envvar", i, envs[0]))
        added = re.search(r"new in version (\d+(?:\.\d+)+)", w, re.I)
        if added and own and own in w:
            out.append(Ask(_pick(_SINCE, rng, t=own, p=project), "since", i, own))
        if version and DATE.search(w) and re.search(r"releas|date|\d{4}-\d{2}", w, re.I):
            out.append(Ask(_pick(_RELEASED, rng, t=version.group(1), p=project), "released",
                           i, version.group(1)))
    rng.shuffle(out)
    return out[:4]


def is_name(token: str) -> bool:
    return token.lower() not in {"e.g", "i.e", "etc", "vs"} and len(token) > 2


def _named_before(window: str, at: int, own: str) -> str:
    """The name a default or list of values in ``window`` belongs to: the section's own
    identifier when the window names it, else the last identifier before the cue ("" when the
    window does not say whose it is)."""
    if own and own in window:
        return own
    names = [m.group(0).rstrip("()") for m in CODE_ID.finditer(window[:at])
             if is_name(m.group(0))]
    return names[-1] if names else ""


# -- near misses made from a question --------------------------------------------------------
_THINGS = ("retries", "workers", "threads", "connections", "items", "lines", "entries",
           "files", "requests", "seconds", "levels", "arguments")
_MANY = ("how many {x} does {t} allow", "how many {x} can {t} handle at once",
         "what's the maximum number of {x} for {t}", "how many {x} does {t} keep by default")
_PERF = ("how much faster is {t} than the alternative", "how much memory does {t} use",
         "by how many milliseconds does {t} speed things up", "how much overhead does {t} add",
         "does {t} work on android", "is {t} thread-safe on pypy")


def swap_target(ask: Ask, other: str) -> str:
    """The question asked of ``other`` instead of its own target (case kept as written)."""
    return ask.question.replace(ask.target, other, 1) if ask.target in ask.question else ""


def how_many(target: str, rng: random.Random) -> str:
    return _pick(_MANY, rng, x=rng.choice(_THINGS), t=target)


def performance(target: str, rng: random.Random) -> str:
    return _pick(_PERF, rng, t=target)


def default_of(target: str, rng: random.Random) -> str:
    return _pick(_DEFAULT, rng, t=target)


def other_version(version: str, rng: random.Random) -> str:
    parts = version.split(".")
    i = rng.randrange(len(parts))
    parts[i] = str(int(re.sub(r"\D.*", "", parts[i]) or 0) + rng.choice((3, 7, 11)))
    return ".".join(parts)
