#!/usr/bin/env python3
"""Build the PDF documents of the bundled sample corpus.

Reads ``scripts/sample_pdf_sources/*.txt`` and writes one PDF per source file
to ``src/abstain/sample_corpus/guides/<name>.pdf``.

Source format (plain text, latin-1 compatible characters only):

* the first line is the document title;
* a line starting with ``# `` is a section heading, ``## `` a subsection heading;
* a line starting with ``- `` is a bullet item;
* every other non-empty line is one paragraph.

The PDFs use the core Helvetica font, so no font files are needed, and a fixed
creation date, so that rebuilding them produces identical files.

Usage:  python scripts/make_sample_pdfs.py
"""

from __future__ import annotations

import datetime as _dt
import sys
from pathlib import Path

from fpdf import FPDF
from fpdf.enums import XPos, YPos

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "scripts" / "sample_pdf_sources"
OUT_DIR = ROOT / "src" / "abstain" / "sample_corpus" / "guides"
FIXED_DATE = _dt.datetime(2024, 3, 11, 12, 0, 0, tzinfo=_dt.UTC)

BODY_SIZE = 11
LINE_H = 5.6


def _check_latin1(path: Path, text: str) -> None:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise SystemExit(f"{path}:{line}: character {text[exc.start]!r} is not latin-1") from None


def build_pdf(source: Path, target: Path) -> int:
    text = source.read_text(encoding="utf-8")
    _check_latin1(source, text)
    lines = text.splitlines()
    title, body = lines[0].strip(), lines[1:]

    pdf = FPDF(format="A4", unit="mm")
    pdf.set_margins(20, 20, 20)
    pdf.set_auto_page_break(auto=True, margin=20)
    pdf.set_title(title)
    pdf.set_author("Quillstack Labs")
    pdf.set_creator("scripts/make_sample_pdfs.py")
    pdf.set_creation_date(FIXED_DATE)
    pdf.add_page()

    def block(txt: str, size: float, style: str = "", before: float = 0, after: float = 2,
              h: float = LINE_H, indent: float = 0) -> None:
        pdf.set_font("Helvetica", style, size)
        if before:
            pdf.ln(before)
        pdf.set_x(pdf.l_margin + indent)
        pdf.multi_cell(pdf.epw - indent, h, txt, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        if after:
            pdf.ln(after)

    block(title, 22, "B", h=10, after=6)
    for raw in body:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("## "):
            # keep a subheading together with at least a few lines of its text
            if pdf.get_y() > pdf.page_break_trigger - 25:
                pdf.add_page()
            block(line[3:], 13, "B", before=3, h=7, after=1)
        elif line.startswith("# "):
            if pdf.get_y() > pdf.page_break_trigger - 35:
                pdf.add_page()
            block(line[2:], 16, "B", before=5, h=8, after=2)
        elif line.startswith("- "):
            block("- " + line[2:], BODY_SIZE, indent=4, after=1)
        else:
            block(line, BODY_SIZE)

    target.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(target))
    return pdf.pages_count


def main() -> int:
    sources = sorted(SOURCES.glob("*.txt"))
    if not sources:
        print(f"no sources in {SOURCES}", file=sys.stderr)
        return 1
    for source in sources:
        target = OUT_DIR / f"{source.stem}.pdf"
        pages = build_pdf(source, target)
        print(f"{target.relative_to(ROOT)}: {pages} pages, {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
