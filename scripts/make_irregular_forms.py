"""Write src/abstain/data/english_irregular.tsv: English irregular word forms and their base.

"The same word" in abstain is stem-equal (Snowball English). The stemmer strips regular
endings but cannot know that "forgot" and "forgotten" are forms of "forget", "sent" of
"send" or "indices" of "index": a user who writes "I forgot my password" is asking about the
page titled "Resetting a forgotten password". :func:`abstain.text.stem` reads a form through
this table before stemming.

The forms come from LemmInflect's inflection table (code MIT; the table derived from the
NIH SPECIALIST Lexicon, https://lexsrv3.nlm.nih.gov/Specialist), taken once at development
time: a verb's past tense and past participle, a noun's plural, kept when

* the stemmer does not already make it stem-equal to its base (``walked``);
* it is not itself a base word of any part of speech (``found``, ``left``, ``saw``,
  ``lives``: each is a word in its own right) nor a form of two bases (``bases``, ``leaves``);
* it has four letters at least (``sat``, ``met``, ``lit`` are as often abbreviations);
* it does not end in ``ed`` beyond four letters (``programmed``, ``focussed``: spelling
  variants of a regular form, which the stemmer handles or should not be overruled on).

    pip install lemminflect==0.2.3 && python scripts/make_irregular_forms.py
"""

from __future__ import annotations

import csv
import gzip
from collections import defaultdict
from importlib import resources
from pathlib import Path

import Stemmer

OUT = Path(__file__).resolve().parents[1] / "src" / "abstain" / "data" / "english_irregular.tsv"
HEADER = (
    "# English irregular forms (a verb's past tense and participle, a noun's plural) and their\n"
    "# base word, from LemmInflect 0.2.3's inflection table (code MIT; the table derived from\n"
    "# the NIH SPECIALIST Lexicon). Read by abstain.text.stem before stemming. Regenerate with\n"
    "# scripts/make_irregular_forms.py (which says which forms are kept).\n")


def main() -> None:
    stemmer = Stemmer.Stemmer("english")
    table = resources.files("lemminflect").joinpath("resources", "infl_lu.csv.gz")
    with table.open("rb") as raw, gzip.open(raw, "rt") as text:
        rows = list(csv.reader(text))
    bases = {r[0].lower() for r in rows}
    of: dict[str, set[str]] = defaultdict(set)  # every inflected form -> its bases
    for r in rows:
        for cell in r[2:]:
            for form in filter(None, cell.split("/")):
                of[form.lower()].add(r[0].lower())
    out: dict[str, str] = {}
    for r in rows:
        base, pos = r[0], r[1]
        if pos not in ("verb", "noun") or not base.isalpha() or not base.islower():
            continue
        cells = r[2:4] if pos == "verb" else r[2:3]
        for form in {f for cell in cells for f in cell.split("/")}:
            if (not form.isalpha() or not form.isascii() or not form.islower() or len(form) < 4
                    or (form.endswith("ed") and len(form) > 4)
                    or stemmer.stemWord(form) == stemmer.stemWord(base)
                    or form in bases or len(of[form]) > 1):
                continue
            out[form] = base
    OUT.write_text(HEADER + "".join(f"{f}\t{b}\n" for f, b in sorted(out.items())))
    print(f"{len(out)} forms -> {OUT}")


if __name__ == "__main__":
    main()
