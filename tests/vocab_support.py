"""A small SKOS vocabulary (English and Dutch, alternative labels, broader / narrower) and a
knowledge base whose documents use only the preferred labels, for the vocabulary tests."""

from __future__ import annotations

from pathlib import Path

from abstain.embed.base import Embedder
from abstain.pipeline import Pipeline
from abstain.stores.sqlite import SQLiteStore
from abstain.vocabulary import VocabularySource, load

GRID = "https://vocab.example.org/grid/"
CMZ = GRID + "cmz"
TURTLE = """\
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix g: <https://vocab.example.org/grid/> .

g:scheme a skos:ConceptScheme ; skos:prefLabel "Grid terms"@en .

g:congestion a skos:Concept ; skos:inScheme g:scheme ;
    skos:prefLabel "grid congestion"@en , "netcongestie"@nl ;
    skos:definition "A shortage of transport capacity on the electricity grid."@en ;
    skos:narrower g:cmz .

g:cmz a skos:Concept ; skos:inScheme g:scheme ;
    skos:prefLabel "congestion management zone"@en , "congestiebeheergebied"@nl ;
    skos:altLabel "CMZ"@en , "congestiegebied"@nl ;
    skos:hiddenLabel "congestion managment zone"@en ;
    skos:notation "G.7" ;
    skos:definition "An area of the grid where the operator steers demand to avoid overload."@en ,
        "Een gebied van het net waar de netbeheerder de vraag stuurt."@nl ;
    skos:scopeNote "Used when procuring flexibility."@en ;
    skos:broader g:congestion ;
    skos:related g:flex .

g:flex a skos:Concept ; skos:inScheme g:scheme ;
    skos:prefLabel "flexibility service"@en , "flexdienst"@nl ;
    skos:altLabel "flex"@en ;
    skos:definition "A paid change in a customer's use of the grid, on request."@en .

g:tariff a skos:Concept ; skos:inScheme g:scheme ;
    skos:prefLabel "grid tariff"@en ;
    skos:broader g:congestion .
"""
"""Four concepts; ``grid tariff`` has no definition."""

DOCS = {
    "procurement.md": (
        "# Procurement of flexibility\n\nIn a congestion management zone the grid operator "
        "buys flexibility services from large customers. Contracts in a congestion "
        "management zone run for one year and are tendered every spring.\n"),
    "backups.md": ("# Backups\n\nBackups of the metering database run every night at 02:00 UTC "
                   "and are kept for 14 days.\n"),
}


def write_vocabulary(folder: Path) -> Path:
    path = folder / "grid.ttl"
    path.write_text(TURTLE, encoding="utf-8")
    return path


def build_kb(folder: Path, embedder: Embedder, *, workspace: str = "default") -> Path:
    """A SQLite store with the documents and the vocabulary loaded into ``workspace``."""
    db = folder / "kb.db"
    with Pipeline(SQLiteStore(db), embedder, workspace=workspace) as pipe:
        for name, text in DOCS.items():
            pipe.ingest_text(text, source=name)
        load(pipe.store, workspace, VocabularySource(str(write_vocabulary(folder))))
    return db
