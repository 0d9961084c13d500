"""Write src/abstain/data/english_zipf.tsv: general-English word frequencies for the gate.

The gate weighs a question's words by how rare they are in the workspace *and* in English,
so that ordinary words ("put", "stop", "inside") barely count when a small documentation
set happens not to use them. The list is taken from wordfreq (code Apache-2.0; data CC BY-SA
4.0, see the header written into the file) once, at development time:

    pip install wordfreq && python scripts/make_word_frequencies.py
"""

from __future__ import annotations

from pathlib import Path

from wordfreq import top_n_list, zipf_frequency

TOP = 30000
OUT = Path(__file__).resolve().parents[1] / "src" / "abstain" / "data" / "english_zipf.tsv"

HEADER = (
    "# The 30,000 most frequent English words with their Zipf frequency (log10 per billion\n"
    "# words), from wordfreq 3.1 (https://github.com/rspeer/wordfreq): data CC BY-SA 4.0,\n"
    "# compiled by Robyn Speer from Wikipedia, subtitles, news, books, web text, Twitter and\n"
    "# Reddit. Regenerate with scripts/make_word_frequencies.py.\n")


def main() -> None:
    rows = []
    for word in top_n_list("en", TOP):
        if word.isalpha() and word.isascii():
            rows.append(f"{word}\t{zipf_frequency(word, 'en'):.2f}")
    OUT.write_text(HEADER + "\n".join(rows) + "\n")
    print(f"{len(rows)} words -> {OUT}")


if __name__ == "__main__":
    main()
