"""Parent/child chunking that respects headings and paragraphs.

A *parent* is a section (or a slice of a long section cut at block
boundaries): the context a generator reads. Its *children* are runs of whole
blocks up to ``child_chars``, one block per line; only a block longer than that is
cut: a paragraph at sentence boundaries, a code block at line ends (each piece fenced
again). Children are what both retrieval arms search. A chunk that opens with a list
item whose introducing sentence it does not hold repeats that sentence first.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from abstain.errors import ConfigError
from abstain.evidence import Chunk, ChunkKind
from abstain.ingest.blocks import Block, BlockKind, ParsedDocument, defined_term, paragraph
from abstain.text import FENCE, split_sentences


@dataclass(frozen=True, slots=True)
class ChunkingConfig:
    """How documents are cut: parents (what an answer is built from) of about
    ``parent_chars`` characters, split into children (what is searched) of about
    ``child_chars``, along the document's blocks (docs/INGEST.md)."""

    parent_chars: int = 2000
    child_chars: int = 600
    min_child_chars: int = 120
    """A trailing run shorter than this is merged into the previous child."""

    def __post_init__(self) -> None:
        if not 50 <= self.child_chars <= self.parent_chars:
            raise ConfigError("need 50 <= child_chars <= parent_chars")


def chunk_document(doc_id: str, parsed: ParsedDocument,
                   config: ChunkingConfig | None = None) -> list[Chunk]:
    """Parents and children, in document order; children point at their parent."""
    return list(iter_chunks(doc_id, parsed, config))


def iter_chunks(doc_id: str, parsed: ParsedDocument,
                config: ChunkingConfig | None = None) -> Iterator[Chunk]:
    """:func:`chunk_document` one chunk at a time (a parent before its children)."""
    config = config or ChunkingConfig()
    n_parent = n_child = 0
    for section in parsed.sections:
        pieces = [p for b in section.blocks for p in _fit(b, config.child_chars)]
        for parent_blocks in _pack(pieces, config.parent_chars, config.min_child_chars):
            parent_blocks = _with_lead(parent_blocks)
            parent_id = f"{doc_id}-p{n_parent}"
            yield Chunk(parent_id, doc_id, ChunkKind.PARENT,
                        "\n\n".join(b.text for b in parent_blocks),
                        n_parent, None, section.heading_path)
            n_parent += 1
            for child_blocks in _pack(parent_blocks, config.child_chars, config.min_child_chars):
                text = "\n".join(b.text for b in _with_lead(child_blocks))
                yield Chunk(f"{doc_id}-c{n_child}", doc_id, ChunkKind.CHILD,
                            text, n_child, parent_id, section.heading_path)
                n_child += 1


def paraphrase_chunks(doc_id: str, child: Chunk, texts: Iterable[str], start: int) -> list[Chunk]:
    """Wrap generated paraphrases / hypothetical questions of one child chunk."""
    return [
        Chunk(f"{doc_id}-q{start + i}", doc_id, ChunkKind.PARAPHRASE, text.strip(), start + i,
              child.id, child.heading_path)
        for i, text in enumerate(t for t in texts if t.strip())
    ]


def _with_lead(blocks: list[Block]) -> list[Block]:
    """``blocks``, after the sentence introducing the list of its first item when the run
    does not hold it."""
    lead = blocks[0].lead if blocks else ""
    if not lead or any(b.text == lead for b in blocks):
        return blocks
    block = paragraph(lead)
    return [block, *blocks] if block is not None else blocks


def _fit(block: Block, limit: int) -> list[Block]:
    """Cut a block longer than ``limit``: code at line ends, fenced again; other text at
    sentence boundaries (hard cut as a last resort); each piece keeps the block's kind."""
    if len(block.text) <= limit:
        return [block]
    if block.kind is BlockKind.CODE:
        return [Block(BlockKind.CODE, f"{FENCE}\n{piece}\n{FENCE}")
                for piece in _code_pieces(block.text, limit)]
    pieces = _cut(block.text, limit)
    term = defined_term(block)
    if term is not None:  # each piece of a long definition says what it defines, as an
        # item: waitress' "Default: waitress.invalid" opened the next chunk, above
        # "- ipv6: …", and read as ipv6's
        bare = term[2:]  # the first piece's "server_name: …" lost its marker with _cut
        pieces = [f"- {piece}" if piece.startswith(bare) else f"{term}{piece}"
                  for piece in pieces]
    return [Block(block.kind, text, block.lead) for text in pieces]


def _code_pieces(text: str, limit: int) -> list[str]:
    lines = text.split("\n")[1:-1]  # inside the fences
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        for part in [line[i:i + limit] for i in range(0, len(line), limit)] or [""]:
            if current and size + len(part) + 1 > limit - 2 * len(FENCE) - 2:
                pieces.append("\n".join(current))
                current, size = [], 0
            current.append(part)
            size += len(part) + 1
    if current:
        pieces.append("\n".join(current))
    return [p for p in pieces if p.strip()]


def _cut(block: str, limit: int) -> list[str]:
    out: list[str] = []
    current = ""
    for sentence in split_sentences(block) or [block]:
        while len(sentence) > limit:
            cut = sentence.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            if current:
                out.append(current)
                current = ""
            out.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > limit:
            out.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        out.append(current)
    return out


def _pack(blocks: list[Block], limit: int, min_chars: int) -> list[list[Block]]:
    groups: list[list[Block]] = []
    size = 0
    for block in blocks:
        if groups and size + len(block.text) + 1 <= limit:
            groups[-1].append(block)
            size += len(block.text) + 1
        else:
            groups.append([block])
            size = len(block.text)
    if len(groups) > 1 and sum(len(b.text) for b in groups[-1]) < min_chars:
        tail = groups.pop()
        if (sum(len(b.text) + 1 for b in groups[-1]) + sum(len(b.text) for b in tail)
                <= limit * 1.25):
            groups[-1].extend(tail)
        else:
            groups.append(tail)
    return groups
