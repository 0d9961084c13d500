"""Reading SKOS: concepts out of Turtle, RDF/XML, N-Triples or JSON-LD, with rdflib.

rdflib is the ``vocab`` extra, imported only here and only when a vocabulary is read.
Every ``skos:Concept`` becomes a :class:`~abstain.stores.vocab_base.Concept` with its
labels, notes and relations in every language; a relation stated one way only
(``skos:broader`` without the matching ``skos:narrower``) is completed the other way.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abstain.errors import MissingDependency, VocabularyError
from abstain.stores.vocab_base import Concept, LangText

if TYPE_CHECKING:
    from rdflib import Graph

FORMATS = {".ttl": "turtle", ".turtle": "turtle", ".rdf": "xml", ".xml": "xml",
           ".owl": "xml", ".nt": "nt", ".n3": "n3", ".jsonld": "json-ld", ".json": "json-ld"}
"""File extension -> rdflib format name."""
MEDIA_TYPES = {"turtle": "text/turtle", "xml": "application/rdf+xml",
               "json-ld": "application/ld+json", "nt": "application/n-triples"}


def _rdflib() -> Any:
    try:
        import rdflib
    except ImportError as exc:
        raise MissingDependency("rdflib", "vocab") from exc
    return rdflib


def format_of(path: str, fmt: str | None = None) -> str:
    """The rdflib format of a file: ``fmt`` if given, else from its extension."""
    if fmt:
        return {"ttl": "turtle", "rdfxml": "xml", "rdf": "xml", "jsonld": "json-ld"}.get(fmt, fmt)
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise VocabularyError(f"{path}: cannot tell the RDF format from the extension "
                              f"{suffix or '(none)'}; name it with --format "
                              "(turtle, xml, json-ld, nt)")
    return FORMATS[suffix]


def read_file(path: str | Path, fmt: str | None = None) -> list[Concept]:
    """The concepts of a SKOS file."""
    location = str(path)
    try:
        data = Path(location).expanduser().read_bytes()
    except OSError as exc:
        raise VocabularyError(f"cannot read {location}: {exc.strerror or exc}") from exc
    return parse(data, format_of(location, fmt), where=location)


def parse(data: bytes | str, fmt: str, *, where: str) -> list[Concept]:
    """The concepts of SKOS data in rdflib format ``fmt``."""
    rdflib = _rdflib()
    graph = rdflib.Graph()
    try:
        graph.parse(data=data, format=fmt)
    except Exception as exc:  # rdflib raises many kinds on bad input
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise VocabularyError(f"{where} is not readable as {fmt} RDF: {first}") from exc
    return concepts_of(graph)


def concepts_of(graph: Graph) -> list[Concept]:
    """Every skos:Concept of the graph, and every other subject with a skos:prefLabel that
    is not a concept scheme or collection, by URI."""
    rdflib = _rdflib()
    skos = rdflib.namespace.SKOS
    subjects = {s for s in graph.subjects(rdflib.RDF.type, skos.Concept)
                if isinstance(s, rdflib.URIRef)}
    others = {s for kind in (skos.ConceptScheme, skos.Collection, skos.OrderedCollection)
              for s in graph.subjects(rdflib.RDF.type, kind)}
    subjects |= {s for s in graph.subjects(skos.prefLabel, None)
                 if isinstance(s, rdflib.URIRef) and s not in others}
    if not subjects:
        return []
    links: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for name, inverse in (("broader", "narrower"), ("narrower", "broader"),
                          ("related", "related")):
        for s, o in graph.subject_objects(getattr(skos, name)):
            if isinstance(s, rdflib.URIRef) and isinstance(o, rdflib.URIRef):
                links[str(s)][name].add(str(o))
                links[str(o)][inverse].add(str(s))

    def texts(subject: Any, predicate: Any) -> tuple[LangText, ...]:
        found = {LangText(str(o).strip(), (o.language or "").lower())
                 for o in graph.objects(subject, predicate)
                 if isinstance(o, rdflib.Literal) and str(o).strip()}
        return tuple(sorted(found, key=lambda t: (t.lang, t.text)))

    out = []
    for subject in sorted(subjects, key=str):
        uri = str(subject)
        out.append(Concept(
            uri, texts(subject, skos.prefLabel), texts(subject, skos.altLabel),
            texts(subject, skos.hiddenLabel), texts(subject, skos.definition),
            texts(subject, skos.scopeNote), _sorted(links[uri]["broader"]),
            _sorted(links[uri]["narrower"]), _sorted(links[uri]["related"]),
            tuple(sorted({t.text for t in texts(subject, skos.notation)}))))
    return out


def _sorted(uris: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(uris))
