"""Load the four tables from docs/ as (columns, rows) and build row text / KEYs."""
import csv, os, re
from html.parser import HTMLParser

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs")
FILES = {"invoices": "invoices.csv", "library_catalogue": "library_catalogue.csv",
         "tidectl_flags": "tidectl_flags.md", "sla_tiers": "sla_tiers.html"}


def load_csv(p):
    with open(p, newline="", encoding="utf-8") as f:
        r = list(csv.reader(f))
    return r[0], r[1:]


def load_md(p):
    lines = [l.strip() for l in open(p, encoding="utf-8") if l.strip().startswith("|")]
    cells = [[c.strip() for c in l.strip("|").split("|")] for l in lines]
    return cells[0], [c for c in cells[2:]]


class _T(HTMLParser):
    def __init__(self):
        super().__init__(); self.rows = []; self.cur = None; self.cell = None
    def handle_starttag(self, t, a):
        if t == "tr": self.cur = []
        elif t in ("td", "th"): self.cell = ""
    def handle_endtag(self, t):
        if t in ("td", "th"): self.cur.append(self.cell.strip()); self.cell = None
        elif t == "tr": self.rows.append(self.cur)
    def handle_data(self, d):
        if self.cell is not None: self.cell += d


def load_html(p):
    t = _T(); t.feed(open(p, encoding="utf-8").read())
    return t.rows[0], t.rows[1:]


def load(group):
    p = os.path.join(D, FILES[group])
    return {"csv": load_csv, "md": load_md, "html": load_html}[p.rsplit(".", 1)[1]](p)


def row_text(cols, row):
    return "; ".join(f"{c}: {v}" for c, v in zip(cols, row) if v != "")


def key(cols, row, id_col, ask_col):
    """Cut of row_text from the id cell VALUE to the asked cell VALUE (or reverse order)."""
    segs, pos, spans = [], 0, {}
    for c, v in zip(cols, row):
        if v == "": continue
        s = f"{c}: {v}"
        if segs: pos += 2
        spans[c] = (pos + len(c) + 2, pos + len(s))  # span of the value
        segs.append(s); pos += len(s)
    text = "; ".join(segs)
    a, b = spans[id_col], spans[ask_col]
    first, last = (a, b) if a[0] <= b[0] else (b, a)
    return text[first[0]:last[1]]
