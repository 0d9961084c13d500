"""A SKOSMOS server through its REST API (``/rest/v1/…``), with httpx.

A vocabulary is read whole, once, and kept in the store (lookups never go to the server):

* ``GET /rest/v1/{vocid}/data?format=text/turtle`` — the whole vocabulary as RDF;
* when the server does not serve the whole vocabulary, the concepts are listed with
  ``GET /rest/v1/search?vocab={vocid}&query=*`` (page by page, ``maxhits`` / ``offset``)
  and each is read with ``GET /rest/v1/{vocid}/data?uri=…&format=application/ld+json``;
* ``GET /rest/v1/vocabularies`` names the vocabularies when no id was given.

The RDF is read by :mod:`abstain.vocabulary.skos` (the ``vocab`` extra).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from abstain.errors import VocabularyError
from abstain.stores.vocab_base import Concept
from abstain.vocabulary import skos

DEFAULT_TIMEOUT = 30.0
PAGE = 1000
"""Search hits asked for per page when the concepts are listed one by one."""
MAX_CONCEPTS = 500_000
_REST = re.compile(r"^(?P<base>.*?)/rest/v1(?:/(?P<vocid>[^/?#]+))?/?$")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where a SKOSMOS vocabulary is: the server's base URL and the vocabulary id."""

    base: str
    vocid: str = ""

    @classmethod
    def parse(cls, url: str, vocid: str | None = None) -> Endpoint:
        """``https://host/skosmos`` (with ``vocid``) or ``https://host/skosmos/rest/v1/ID``."""
        text = url.strip().rstrip("/")
        match = _REST.match(text)
        if match:
            return cls(match["base"], vocid or match["vocid"] or "")
        return cls(text, vocid or "")

    def rest(self, path: str) -> str:
        return f"{self.base}/rest/v1/{path.lstrip('/')}"


class SkosmosClient:
    """Reads vocabularies from one SKOSMOS server; ``transport`` is for tests and proxies."""

    def __init__(self, endpoint: Endpoint, *, timeout: float = DEFAULT_TIMEOUT,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.endpoint = endpoint
        self._client = httpx.Client(timeout=timeout, transport=transport,
                                    follow_redirects=True,
                                    headers={"User-Agent": "abstain (SKOSMOS REST client)"})

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> SkosmosClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def vocabulary_ids(self) -> list[str]:
        data = self._json("vocabularies", {"lang": "en"})
        return [str(v["id"]) for v in data.get("vocabularies", []) if v.get("id")]

    def vocid(self) -> str:
        """The endpoint's vocabulary id, or the server's only vocabulary."""
        if self.endpoint.vocid:
            return self.endpoint.vocid
        ids = self.vocabulary_ids()
        if len(ids) == 1:
            return ids[0]
        raise VocabularyError(
            f"{self.endpoint.base} serves {len(ids)} vocabularies"
            f"{' (' + ', '.join(ids) + ')' if ids else ''}; name one with --vocid ID")

    def concepts(self, vocid: str) -> list[Concept]:
        """Every concept of the vocabulary, read whole if the server allows, else one by one."""
        response = self._get(f"{vocid}/data", {"format": "text/turtle"})
        if response.status_code == 200 and response.content.strip():
            found = skos.parse(response.content, "turtle", where=str(response.url))
            if found:
                return found
        elif response.status_code not in (400, 404, 406, 500, 501, 503):
            raise self._failed(response)
        return self._one_by_one(vocid)

    def _one_by_one(self, vocid: str) -> list[Concept]:
        uris: dict[str, None] = {}
        offset = 0
        while len(uris) < MAX_CONCEPTS:
            page = self._json("search", {"vocab": vocid, "query": "*", "unique": "true",
                                         "maxhits": str(PAGE), "offset": str(offset)})
            results = [r["uri"] for r in page.get("results", []) if r.get("uri")]
            uris.update(dict.fromkeys(str(u) for u in results))
            if len(results) < PAGE:
                break
            offset += PAGE
        documents = []
        for uri in uris:
            response = self._get(f"{vocid}/data", {"uri": uri, "format": "application/ld+json"})
            if response.status_code != 200:
                raise self._failed(response)
            documents.append(response.content)
        return _merged(documents, where=self.endpoint.rest(f"{vocid}/data"))

    def _json(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        response = self._get(path, params)
        if response.status_code != 200:
            raise self._failed(response)
        try:
            data = response.json()
        except ValueError as exc:
            raise VocabularyError(f"{response.url} did not return JSON") from exc
        if not isinstance(data, dict):
            raise VocabularyError(f"{response.url} returned {type(data).__name__}, not an object")
        return data

    def _get(self, path: str, params: dict[str, str]) -> httpx.Response:
        url = self.endpoint.rest(path)
        try:
            return self._client.get(url, params=params)
        except httpx.HTTPError as exc:
            raise VocabularyError(f"cannot reach the SKOSMOS server at {url}: {exc}") from exc

    def _failed(self, response: httpx.Response) -> VocabularyError:
        return VocabularyError(f"SKOSMOS {response.url} answered HTTP {response.status_code}")


def _merged(documents: list[bytes], *, where: str) -> list[Concept]:
    """The concepts of several JSON-LD documents read as one graph."""
    rdflib = skos._rdflib()
    graph = rdflib.Graph()
    for data in documents:
        try:
            graph.parse(data=data, format="json-ld")
        except Exception as exc:  # rdflib raises many kinds on bad input
            raise VocabularyError(f"{where} returned unreadable JSON-LD: {exc}") from exc
    return skos.concepts_of(graph)
