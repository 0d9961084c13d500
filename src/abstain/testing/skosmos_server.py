"""A scripted SKOSMOS server on a loopback port: the REST endpoints abstain reads, for real.

Give it vocabularies as SKOS Turtle, by vocabulary id; it serves them over real HTTP from
a thread (stdlib :mod:`http.server`), as a SKOSMOS installation does::

    with ScriptedSkosmosServer({"grid": TURTLE}) as server:
        abstain.vocabulary.load(store, "ws", VocabularySource(server.url + "/rest/v1/grid"))

Endpoints (``GET``): ``/rest/v1/vocabularies``, ``/rest/v1/{vocid}/`` (the vocabulary's
id, title and languages), ``/rest/v1/{vocid}/data`` (the whole vocabulary as Turtle, or
one concept as JSON-LD with ``uri=…``), ``/rest/v1/search`` and ``/rest/v1/{vocid}/search``
(``query`` with ``*`` wildcards over preferred and alternative labels, ``lang``,
``vocab``, ``maxhits``, ``offset``). ``whole_data=False`` makes the whole-vocabulary dump
answer 404, as servers without it do, so that a client must read concept by concept.
``requests`` logs every path asked; ``fail_with`` makes every request answer that status.
Reading Turtle needs the ``vocab`` extra (rdflib).
"""

from __future__ import annotations

import fnmatch
import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from abstain.stores.vocab_base import Concept
from abstain.testing.loopback import LoopbackServer
from abstain.text import fold
from abstain.vocabulary.skos import parse


class ScriptedSkosmosServer(LoopbackServer):
    thread_name = "scripted-skosmos"

    def __init__(self, vocabularies: Mapping[str, str], *, whole_data: bool = True) -> None:
        self.turtle = dict(vocabularies)
        self.concepts: dict[str, list[Concept]] = {
            vocid: parse(text, "turtle", where=vocid) for vocid, text in self.turtle.items()}
        self.whole_data = whole_data
        self.fail_with: int | None = None
        self.requests: list[str] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        """The server's base URL (the REST API is under ``/rest/v1``)."""
        return self.root_url

    def set_vocabulary(self, vocid: str, turtle: str) -> None:
        """Replace (or add) a vocabulary's content, as an editor publishing a change."""
        with self._lock:
            self.turtle[vocid] = turtle
            self.concepts[vocid] = parse(turtle, "turtle", where=vocid)

    # -- the endpoints -------------------------------------------------------
    def handle(self, path: str, query: dict[str, str]) -> tuple[int, str, bytes]:
        parts = [p for p in path.split("/") if p]
        if parts[:2] != ["rest", "v1"]:
            return _json(404, {"message": "not found"})
        rest = parts[2:]
        if rest == ["vocabularies"]:
            return _json(200, {"vocabularies": [{"id": v, "uri": f"urn:vocab:{v}", "title": v}
                                                for v in sorted(self.turtle)]})
        if rest == ["search"]:
            return self._search(query, query.get("vocab", ""))
        if not rest or rest[0] not in self.turtle:
            return _json(404, {"message": f"no vocabulary {rest[:1]}"})
        vocid = rest[0]
        if rest[1:] in ([], [""]):
            langs = sorted({lang for c in self.concepts[vocid] for lang in c.languages})
            return _json(200, {"id": vocid, "title": vocid, "languages": langs,
                               "defaultLanguage": langs[0] if langs else "en"})
        if rest[1:] == ["search"]:
            return self._search(query, vocid)
        if rest[1:] == ["data"]:
            return self._data(vocid, query)
        return _json(404, {"message": "not found"})

    def _search(self, query: dict[str, str], vocabs: str) -> tuple[int, str, bytes]:
        pattern = fold(query.get("query", "").strip())
        if not pattern:
            return _json(400, {"message": "query is required"})
        lang = query.get("lang", "")
        results = []
        for vocid in (vocabs.split() or sorted(self.concepts)):
            for concept in self.concepts.get(vocid, []):
                for kind, text in concept.labels():
                    if kind.value not in ("pref", "alt") or (lang and text.lang != lang):
                        continue
                    if fnmatch.fnmatchcase(fold(text.text), pattern):
                        results.append({"uri": concept.uri, "type": ["skos:Concept"],
                                        "prefLabel": concept.pref_label(text.lang),
                                        "lang": text.lang, "vocab": vocid})
                        break
        offset = int(query.get("offset", "0") or 0)
        limit = int(query.get("maxhits", "0") or 0) or len(results)
        return _json(200, {"results": results[offset:offset + limit]})

    def _data(self, vocid: str, query: dict[str, str]) -> tuple[int, str, bytes]:
        uri = query.get("uri")
        if uri is None:
            if not self.whole_data:
                return _json(404, {"message": "the whole vocabulary is not available"})
            return 200, "text/turtle", self.turtle[vocid].encode()
        import rdflib

        graph = rdflib.Graph()
        graph.parse(data=self.turtle[vocid], format="turtle")
        one = rdflib.Graph()
        for triple in graph.triples((rdflib.URIRef(uri), None, None)):
            one.add(triple)
        if not len(one):
            return _json(404, {"message": f"no concept {uri}"})
        return 200, "application/ld+json", one.serialize(format="json-ld").encode()


def _json(status: int, payload: dict[str, Any]) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(payload).encode()


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedSkosmosServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        split = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        with self.owner._lock:
            self.owner.requests.append(self.path)
            failing = self.owner.fail_with
        if failing is not None:
            status, media, body = _json(failing, {"message": "scripted failure"})
        else:
            status, media, body = self.owner.handle(split.path, query)
        self.send_response(status)
        self.send_header("Content-Type", f"{media}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ScriptedSkosmosServer.handler = _Handler
