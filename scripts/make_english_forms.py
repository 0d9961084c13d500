"""Write src/abstain/data/english_forms.tsv: English word forms the stemmer cannot relate.

"The same word" in abstain is stem-equal (Snowball English). The stemmer strips regular
endings but cannot know that "forgot" and "forgotten" are forms of "forget", "sent" of
"send" or "indices" of "index" — a user who writes "I forgot my password" is asking about the
page titled "Resetting a forgotten password" — nor that "colour" and "initialise" are
"color" and "initialize" spelt the British way. :func:`abstain.text.stem` reads a form
through this table before stemming. Taken once at development time from two packages:

**Irregular forms**, from LemmInflect's inflection table (code MIT; the table derived from
the NIH SPECIALIST Lexicon, https://lexsrv3.nlm.nih.gov/Specialist): a verb's past tense and
past participle, a noun's plural, kept when

* the stemmer does not already make it stem-equal to its base (``walked``);
* it is not itself a base word of any part of speech (``found``, ``left``, ``saw``,
  ``lives``: each is a word in its own right) nor a form of two bases (``bases``, ``leaves``);
* it has four letters at least (``sat``, ``met``, ``lit`` are as often abbreviations);
* it does not end in ``ed`` beyond four letters (``programmed``, ``focussed``: spelling
  variants of a regular form, which the stemmer handles or should not be overruled on).

**British spellings**, from breame's table of British and American spellings (Apache-2.0):
each British form with its American one ("colour" → color, "initialised" → initialized,
"licence" → license), kept when the stemmer does not already make them stem-equal and the
British form is not itself an American spelling, an irregular form or a form of two words
("analyses": also the plural of analysis).

    pip install lemminflect==0.2.3 breame==0.1.2 && python scripts/make_english_forms.py
"""

from __future__ import annotations

import csv
import gzip
from collections import defaultdict
from importlib import resources
from pathlib import Path

import Stemmer

OUT = Path(__file__).resolve().parents[1] / "src" / "abstain" / "data" / "english_forms.tsv"
HEADER = (
    "# English word forms and the word abstain.text.stem reads them as before stemming:\n"
    "# irregular forms (a verb's past tense and participle, a noun's plural) with their base,\n"
    "# from LemmInflect 0.2.3's inflection table (code MIT; the table derived from the NIH\n"
    "# SPECIALIST Lexicon), and British spellings with their American one, from breame 0.1.2\n"
    "# (Apache-2.0). Regenerate with scripts/make_english_forms.py (which says which are kept).\n")


def main() -> None:
    stemmer = Stemmer.Stemmer("english")
    table = resources.files("lemminflect").joinpath("resources", "infl_lu.csv.gz")
    with table.open("rb") as raw, gzip.open(raw, "rt") as text:
        lexicon = list(csv.reader(text))
    of: dict[str, set[str]] = defaultdict(set)  # every inflected form -> its bases
    for r in lexicon:
        for cell in r[2:]:
            for form in filter(None, cell.split("/")):
                of[form.lower()].add(r[0].lower())
    irregular = irregular_forms(stemmer, lexicon, of)
    british = british_spellings(stemmer, irregular, of)
    rows = {**irregular, **british}
    OUT.write_text(HEADER + "".join(f"{f}\t{b}\n" for f, b in sorted(rows.items())))
    print(f"{len(irregular)} irregular forms, {len(british)} British spellings -> {OUT}")


def british_spellings(stemmer: Stemmer.Stemmer, irregular: dict[str, str],
                      of: dict[str, set[str]]) -> dict[str, str]:
    from breame.data.spelling_constants import (
        AMERICAN_ENGLISH_SPELLINGS,
        BRITISH_ENGLISH_SPELLINGS,
    )

    american = set(AMERICAN_ENGLISH_SPELLINGS) | set(BRITISH_ENGLISH_SPELLINGS.values())
    return {b: a for b, a in BRITISH_ENGLISH_SPELLINGS.items()
            if b.isalpha() and b.isascii() and b.islower() and a.isalpha()
            and b not in american and b not in irregular and len(of[b]) <= 1
            and stemmer.stemWord(b) != stemmer.stemWord(a)}


def irregular_forms(stemmer: Stemmer.Stemmer, lexicon: list[list[str]],
                    of: dict[str, set[str]]) -> dict[str, str]:
    bases = {r[0].lower() for r in lexicon}
    out: dict[str, str] = {}
    for r in lexicon:
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
    return out


if __name__ == "__main__":
    main()
