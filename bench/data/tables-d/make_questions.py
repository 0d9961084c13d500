"""Generate bench/data/tables-d/questions.jsonl from the files in docs/ (deterministic).

Run after make.py:
    /work/main/.venv/bin/python bench/data/tables-d/make_questions.py

The script reads the generated files back (openpyxl / csv), renders each row the
way the brief describes ("Column: value" joined by "; ", empty cells omitted,
Excel dates as YYYY-MM-DD, booleans TRUE/FALSE, integers without ".0"), builds
the questions, writes questions.jsonl and then runs self-checks on the output.
Seed: 7.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import random
import re
import zipfile
from collections import Counter
from pathlib import Path

from openpyxl import load_workbook

SEED = 7
HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
OUT = HERE / "questions.jsonl"
ID_RE = re.compile(r"\b(LT-\d{5}|MN-\d{5}|CT-\d{4}-\d{4}|INC-\d{5})\b", re.IGNORECASE)


# --------------------------------------------------------------------------- rendering
def render(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, dt.datetime):
        if v.time() == dt.time(0, 0):
            return v.date().isoformat()
        return v.isoformat(sep=" ")
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else repr(v)
    return str(v).strip()


class Table:
    def __init__(self, name: str, file: str, header: list[str], rows: list[list[str]]):
        self.name, self.file, self.header = name, file, header
        self.rows = [dict(zip(header, r)) for r in rows]
        self.key = header[0]
        self.by_id = {r[self.key]: r for r in self.rows}
        assert len(self.by_id) == len(self.rows), f"duplicate ids in {name}"

    def row_text(self, row: dict, upto: str | None = None) -> str:
        parts = []
        for col in self.header:
            if row[col] != "":
                parts.append(f"{col}: {row[col]}")
            if col == upto:
                break
        return "; ".join(parts)


def sheet_table(ws, name: str, file: str, header_row: int) -> Table:
    rows = list(ws.iter_rows(min_row=header_row, values_only=True))
    header = [render(h) for h in rows[0]]
    body = [[render(v) for v in r] for r in rows[1:] if any(v is not None for v in r)]
    return Table(name, file, header, body)


def load_tables() -> tuple[dict[str, Table], Table]:
    wb = load_workbook(DOCS / "assets.xlsx")
    assert wb["Laptops"]["A1"].value == "IT asset register 2026"
    assert wb["Costs"].sheet_state == "hidden"
    laptops = sheet_table(wb["Laptops"], "Laptops", "assets.xlsx", header_row=3)
    monitors = sheet_table(wb["Monitors"], "Monitors", "assets.xlsx", header_row=1)
    costs = sheet_table(wb["Costs"], "Costs", "assets.xlsx", header_row=1)
    wc = load_workbook(DOCS / "contracts.xlsx")
    contracts = sheet_table(wc["Contracts"], "Contracts", "contracts.xlsx", header_row=1)
    with open(DOCS / "incidents.csv", newline="", encoding="utf-8") as f:
        rd = list(csv.reader(f))
    incidents = Table("Incidents", "incidents.csv", rd[0], rd[1:])  # verbatim CSV values
    tables = {t.name: t for t in (laptops, monitors, contracts, incidents)}
    return tables, costs


# --------------------------------------------------------------------------- question specs
# (table, column, style, template, row filter)
def nonempty(col):
    return lambda t, r: r[col] != ""


ANSWERABLE = [
    # ---- Laptops: direct
    ("Laptops", "Assigned To", "direct", "What is the Assigned To value for {id}?", None),
    ("Laptops", "Model", "direct", "What is the Model of {id}?", lambda t, r: r["Assigned To"] == ""),
    ("Laptops", "Purchase Date", "direct", "What is the Purchase Date of {id}?", None),
    ("Laptops", "Warranty Until", "direct", "What is the Warranty Until date of {id}?", None),
    ("Laptops", "RAM (GB)", "direct", "what is the RAM (GB) of {id}", None),
    ("Laptops", "Location", "direct", "What is the Location of laptop {id}?", None),
    # ---- Laptops: paraphrase
    ("Laptops", "Assigned To", "paraphrase", "Who has laptop {id}?", None),
    ("Laptops", "Warranty Until", "paraphrase", "when does the warranty on {lid} run out", None),
    ("Laptops", "RAM (GB)", "paraphrase", "How much memory does {id} have?", None),
    ("Laptops", "OS", "paraphrase", "what operating system is installed on {id}", None),
    ("Laptops", "Purchase Date", "paraphrase", "When did we buy {id}??", None),
    ("Laptops", "Location", "paraphrase", "where is laptop {id} kept at the moment?", None),
    # ---- Monitors: direct
    ("Monitors", "Size (in)", "direct", "What is the Size (in) of {id}?", None),
    ("Monitors", "Resolution", "direct", "what's the resolution of {id}", None),
    ("Monitors", "Desk", "direct", "Which Desk is monitor {id} at?", None),
    ("Monitors", "Assigned To", "direct", "{id}: Assigned To?", lambda t, r: r["Assigned To"] != ""),
    # ---- Monitors: paraphrase
    ("Monitors", "Size (in)", "paraphrase", "how big is monitor {id}", None),
    ("Monitors", "Assigned To", "paraphrase", "Whose screen is {id}?", lambda t, r: r["Assigned To"] != ""),
    ("Monitors", "Desk", "paraphrase", "Where is monitor {id} set up?", None),
    # ---- Contracts: direct
    ("Contracts", "Vendor", "direct", "What is the Vendor for contract {id}?", None),
    ("Contracts", "Start", "direct", "What is the Start date of {id}?", None),
    ("Contracts", "End", "direct", "what is the end date of {id}?", None),
    ("Contracts", "Annual Value (EUR)", "direct", "What is the Annual Value (EUR) of {id}?", None),
    ("Contracts", "Notice Period (days)", "direct", "What is the Notice Period (days) for {id}?", None),
    # ---- Contracts: paraphrase
    ("Contracts", "Annual Value (EUR)", "paraphrase", "how much do we pay {Vendor} per year for {id}", None),
    ("Contracts", "Auto-renew", "paraphrase", "Is {id} renewed automatically?", None),
    ("Contracts", "Owner", "paraphrase", "who is responsible for contract {id} on our side?", None),
    ("Contracts", "End", "paraphrase", "When does {id} expire?", None),
    ("Contracts", "Service", "paraphrase", "what are we getting from {Vendor} under {id}", None),
    ("Contracts", "Notice Period (days)", "paraphrase",
     "How far in advance do we have to cancel {id}?", None),
    # ---- Incidents: direct
    ("Incidents", "severity", "direct", "What is the severity of {id}?", None),
    ("Incidents", "opened_at", "direct", "What is the opened_at time of {id}?", None),
    ("Incidents", "resolved_at", "direct", "what's the resolved_at for {id}", nonempty("resolved_at")),
    ("Incidents", "root_cause", "direct", "What is the root_cause of {id}?",
     lambda t, r: r["resolved_at"] == "" and r["root_cause"] != "under investigation"),
    ("Incidents", "on_call", "direct", "Who was on_call for {id}?", None),
    # ---- Incidents: paraphrase
    ("Incidents", "root_cause", "paraphrase", "what caused {id}?", nonempty("resolved_at")),
    ("Incidents", "on_call", "paraphrase", "Who was paged for {id}?", None),
    ("Incidents", "service", "paraphrase", "which system went down in {id}", None),
    ("Incidents", "resolved_at", "paraphrase", "When was {id} fixed?", nonempty("resolved_at")),
    ("Incidents", "severity", "paraphrase", "How bad was {id}?", None),
]

# Real ids, properties the table does not have.  hidden=True: the value exists only
# in the hidden "Costs" sheet of assets.xlsx, so it must still be refused.
NEAR_MISS = [
    ("Laptops", "What is the serial number of {id}?", False),
    ("Laptops", "what's the IP address of laptop {id}", False),
    ("Laptops", "Which CPU does {id} have?", False),
    ("Laptops", "What is the hostname of {id}?", False),
    ("Laptops", "What is the purchase cost of {id}?", True),
    ("Laptops", "how much did laptop {id} cost us", True),
    ("Laptops", "What is the battery health of {id}?", False),
    ("Monitors", "What is the refresh rate of {id}?", False),
    ("Monitors", "When does the warranty on monitor {id} expire?", False),
    ("Monitors", "what did monitor {id} cost", True),
    ("Monitors", "Which docking station is {id} connected to?", False),
    ("Contracts", "What is the discount on {id}?", False),
    ("Contracts", "what are the payment terms for {id}", False),
    ("Contracts", "Who signed {id} on the vendor side?", False),
    ("Contracts", "What is the early termination fee for {id}?", False),
    ("Contracts", "What is the vendor contact email for {id}?", False),
    ("Contracts", "Which cost center is {id} billed to?", False),
    ("Incidents", "Who approved {id}?", False),
    ("Incidents", "how many customers were affected by {id}", False),
    ("Incidents", "What is the postmortem link for {id}?", False),
    ("Incidents", "Which region was hit by {id}?", False),
    ("Incidents", "Was the SLA breached for {id}?", False),
]

# Made-up ids in the right pattern that are in no file.
UNKNOWN = [
    ("Laptops", "Who has laptop {id}?"),
    ("Laptops", "What is the Warranty Until date of {id}?"),
    ("Laptops", "what OS is on {id}"),
    ("Laptops", "What is the Model of {id}?"),
    ("Monitors", "What is the Resolution of {id}?"),
    ("Monitors", "how big is monitor {id}"),
    ("Monitors", "Which desk is {id} on?"),
    ("Contracts", "What is the Annual Value (EUR) of {id}?"),
    ("Contracts", "is {id} renewed automatically?"),
    ("Contracts", "Who is the Owner of {id}?"),
    ("Incidents", "What caused {id}?"),
    ("Incidents", "Who was on_call for {id}?"),
    ("Incidents", "what is the severity of {id}"),
]


def fake_id(rng: random.Random, table: str) -> str:
    if table == "Laptops":
        return f"LT-{rng.randint(1000, 9999):05d}"
    if table == "Monitors":
        return f"MN-{rng.randint(10000, 39999)}"
    if table == "Contracts":
        return f"CT-{rng.choice([2023, 2024, 2025, 2026])}-{rng.randint(1, 999):04d}"
    return f"INC-{rng.randint(70000, 79999)}"


def all_file_text() -> str:
    """Every string in every file, including the hidden sheet and raw xlsx XML."""
    chunks = [(DOCS / "incidents.csv").read_text(encoding="utf-8")]
    for name in ("assets.xlsx", "contracts.xlsx"):
        with zipfile.ZipFile(DOCS / name) as z:
            chunks += [z.read(n).decode("utf-8", "replace") for n in z.namelist()]
        wb = load_workbook(DOCS / name)
        for ws in wb.worksheets:
            for r in ws.iter_rows(values_only=True):
                chunks.append("\t".join(render(v) for v in r))
    return "\n".join(chunks)


def main() -> None:
    rng = random.Random(SEED)
    tables, costs = load_tables()
    used: set[str] = set()
    out: list[dict] = []

    def pick(table: Table, flt=None) -> dict:
        cands = [r for r in table.rows if r[table.key] not in used and (flt is None or flt(table, r))]
        r = rng.choice(cands)
        used.add(r[table.key])
        return r

    for tname, col, style, tmpl, flt in ANSWERABLE:
        t = tables[tname]
        r = pick(t, lambda tt, rr: rr[col] != "" and (flt is None or flt(tt, rr)))
        q = tmpl.format(id=r[t.key], lid=r[t.key].lower(), **{k.split(" ")[0]: v for k, v in r.items()})
        out.append({
            "question": q, "expected": "answer", "category": "answerable",
            "gold_sources": [t.file], "answer_keys": [t.row_text(r, upto=col)],
            "column": col, "style": style, "group": tname,
        })

    for tname, tmpl, hidden in NEAR_MISS:
        t = tables[tname]
        r = pick(t, (lambda tt, rr: rr[tt.key] in costs.by_id) if hidden else None)
        out.append({
            "question": tmpl.format(id=r[t.key]), "expected": "refuse", "category": "near_miss",
            "gold_sources": [t.file], "answer_keys": [], "group": tname,
        })

    text = all_file_text()
    for tname, tmpl in UNKNOWN:
        while True:
            fid = fake_id(rng, tname)
            if fid not in text and fid not in used:
                break
        used.add(fid)
        out.append({
            "question": tmpl.format(id=fid), "expected": "refuse", "category": "unknown_entity",
            "gold_sources": [], "answer_keys": [], "group": tname,
        })

    rng.shuffle(out)
    with open(OUT, "w", encoding="utf-8") as f:
        for q in out:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")

    check(tables, costs, text)


# --------------------------------------------------------------------------- self-checks
def check(tables: dict[str, Table], costs: Table, text: str) -> None:
    qs = [json.loads(line) for line in OUT.read_text(encoding="utf-8").splitlines()]
    base = {"question", "expected", "category", "gold_sources", "answer_keys", "group"}
    hidden_cost = 0
    seen_ids: set[str] = set()
    for q in qs:
        ids = ID_RE.findall(q["question"])
        assert len(ids) == 1, q
        qid = ids[0].upper()
        assert qid not in seen_ids, f"id reused: {qid}"
        seen_ids.add(qid)
        t = tables[q["group"]]
        if q["category"] == "answerable":
            assert set(q) == base | {"column", "style"}, q
            assert q["expected"] == "answer" and q["style"] in ("direct", "paraphrase")
            row = t.by_id[qid]
            col = q["column"]
            assert col in t.header and row[col] != "", q
            full = t.row_text(row)
            (key,) = q["answer_keys"]
            assert full.startswith(key), (key, full)
            assert key.startswith(f"{t.key}: {qid}"), key
            assert key.endswith(f"{col}: {row[col]}"), key
            assert q["gold_sources"] == [t.file]
            if q["style"] == "direct":
                assert col.lower() in q["question"].lower(), q
        elif q["category"] == "near_miss":
            assert set(q) == base and q["expected"] == "refuse" and not q["answer_keys"]
            assert qid in t.by_id and q["gold_sources"] == [t.file], q
            if "cost" in q["question"].lower() and "center" not in q["question"].lower():
                assert qid in costs.by_id
                hidden_cost += 1
        else:
            assert q["category"] == "unknown_entity" and q["expected"] == "refuse"
            assert set(q) == base and not q["answer_keys"] and not q["gold_sources"]
            assert qid not in text and qid.lower() not in text.lower(), qid
            assert all(qid not in tt.by_id for tt in tables.values()) and qid not in costs.by_id
    assert hidden_cost == 3, hidden_cost
    cats = Counter(q["category"] for q in qs)
    styles = Counter(q.get("style") for q in qs if q["category"] == "answerable")
    groups = Counter((q["group"], q["category"]) for q in qs)
    print(f"{len(qs)} questions  categories={dict(cats)}  styles={dict(styles)}")
    for k in sorted(groups):
        print("  ", k, groups[k])
    print("hidden-sheet near misses:", hidden_cost)


if __name__ == "__main__":
    main()
