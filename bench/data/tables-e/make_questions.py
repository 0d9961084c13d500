"""Write questions.jsonl for tables-e from the workbooks in docs/.

Answer keys are rendered from the saved .xlsx files (not from the generator's
in-memory data), so they reflect what a reader of the sheet sees.
Deterministic: question order is shuffled with random.Random(SEED).
Run after make.py:  /work/main/.venv/bin/python bench/data/tables-e/make_questions.py
"""
import datetime as dt
import json
import random
import re
from pathlib import Path

from openpyxl import load_workbook

SEED = 4242
HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"


# ------------------------------------------------------------------ rendering
def render(cell):
    v, fmt = cell.value, cell.number_format or "General"
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (dt.datetime, dt.date)):
        return (v.date() if isinstance(v, dt.datetime) else v).isoformat()
    if isinstance(v, (int, float)):
        m = re.search(r"0\.(0+)", fmt)
        dec = len(m.group(1)) if m else 0
        if "%" in fmt:
            return f"{v * 100:.{dec}f}%"
        if m:
            return f"{v:.{dec}f}"
        if float(v).is_integer():
            return str(int(v))
        return repr(float(v))
    return str(v)


def read_table(ws, header_row, c0, c1, first_row, last_row, keep=lambda vals: True):
    heads = [ws.cell(row=header_row, column=c).value for c in range(c0, c1 + 1)]
    rows = []
    for r in range(first_row, last_row + 1):
        cells = [ws.cell(row=r, column=c) for c in range(c0, c1 + 1)]
        vals = [render(c) for c in cells]
        if all(v is None for v in vals) or not keep(vals):
            continue
        rows.append(list(zip(heads, vals)))
    return heads, rows


def load_tables():
    T = {}
    ws = load_workbook(DOCS / "facilities.xlsx")["Rooms"]
    T["Rooms"] = ("facilities.xlsx",) + read_table(
        ws, 4, 1, 6, 5, ws.max_row,
        keep=lambda v: bool(re.fullmatch(r"[A-D]-\d\.\d\d", v[0] or "")))
    wb = load_workbook(DOCS / "vendors.xlsx")
    ws = wb["Vendors"]
    T["Vendors"] = ("vendors.xlsx",) + read_table(ws, 1, 1, 4, 2, ws.max_row)
    T["Vendors (rates)"] = ("vendors.xlsx",) + read_table(ws, 1, 6, 7, 2, ws.max_row)
    ws = wb["Contacts"]
    T["Contacts"] = ("vendors.xlsx",) + read_table(ws, 1, 1, 4, 2, ws.max_row)
    ws = load_workbook(DOCS / "budget.xlsx")["FY2026"]
    T["FY2026"] = ("budget.xlsx",) + read_table(ws, 1, 1, 7, 2, ws.max_row)
    ws = load_workbook(DOCS / "stock.xlsx")["Stock"]
    ret_title = next(r for r in range(1, ws.max_row + 1) if ws.cell(row=r, column=1).value == "Returns")
    T["Stock"] = ("stock.xlsx",) + read_table(ws, 1, 1, 6, 2, ret_title - 1)
    T["Stock (Returns)"] = ("stock.xlsx",) + read_table(ws, ret_title + 1, 1, 4, ret_title + 2, ws.max_row)
    return T


def find_row(T, group, where):
    """where: {column: rendered value}; must match exactly one row."""
    _, heads, rows = T[group]
    hits = [r for r in rows if all(dict(r).get(k) == v for k, v in where.items())]
    assert len(hits) == 1, (group, where, len(hits))
    return hits[0]


def key_for(row, column):
    cols = [h for h, _ in row]
    idx = cols.index(column)
    val = dict(row)[column]
    assert val is not None, ("asked cell empty", row, column)
    return "; ".join(f"{h}: {v}" for h, v in row[: idx + 1] if v is not None)


# ------------------------------------------------------------------ questions
# (group, lookup, column, style, question)
ANSWERABLE = [
    # Rooms – table interrupted by "Building X" label rows, header not repeated
    ("Rooms", {"Room": "B-2.25"}, "Capacity", "direct", "What is the Capacity of room B-2.25?"),
    ("Rooms", {"Room": "A-1.12"}, "Capacity", "paraphrase", "How many people fit into room A-1.12?"),
    ("Rooms", {"Room": "C-3.19"}, "Projector", "direct", "Does room C-3.19 have a Projector?"),
    ("Rooms", {"Room": "D-1.21"}, "Projector", "paraphrase", "Is there a beamer in D-1.21 I could use for slides?"),
    ("Rooms", {"Room": "D-3.13"}, "Booking contact", "direct", "What is the Booking contact for room D-3.13?"),
    ("Rooms", {"Room": "C-1.26"}, "Booking contact", "paraphrase", "Who do I write to if I want to reserve C-1.26?"),
    ("Rooms", {"Room": "D-4.30"}, "Floor", "direct", "On which Floor is room D-4.30?"),
    ("Rooms", {"Room": "A-1.24"}, "Capacity", "paraphrase", "How many seats does A-1.24 have?"),
    ("Rooms", {"Room": "B-0.18"}, "Booking contact", "paraphrase", "Who handles reservations for room B-0.18?"),
    # Vendors – left of two side-by-side tables
    ("Vendors", {"Vendor ID": "V-1037"}, "Payment terms (days)", "direct", "What are the Payment terms (days) for vendor V-1037?"),
    ("Vendors", {"Vendor ID": "V-1054"}, "Payment terms (days)", "paraphrase", "How many days do we have to pay V-1054's invoices?"),
    ("Vendors", {"Vendor ID": "V-1078"}, "Country", "direct", "Which Country is vendor V-1078 in?"),
    ("Vendors", {"Vendor ID": "V-1026"}, "Country", "paraphrase", "Where is supplier V-1026 based?"),
    ("Vendors", {"Vendor ID": "V-1090"}, "Vendor", "paraphrase", "Which company is behind vendor number V-1090?"),
    ("Vendors", {"Vendor ID": "V-1088"}, "Payment terms (days)", "direct", "What are V-1088's payment terms in days?"),
    ("Vendors", {"Vendor": "Jansen Catering BV"}, "Payment terms (days)", "paraphrase", "How long do we get to settle bills from Jansen Catering BV?"),
    # Vendors – right side-by-side table (currency lookup)
    ("Vendors (rates)", {"Currency": "GBP"}, "Rate to EUR", "direct", "What is the Rate to EUR for GBP?"),
    ("Vendors (rates)", {"Currency": "USD"}, "Rate to EUR", "direct", "What is the rate of USD to EUR?"),
    ("Vendors (rates)", {"Currency": "CHF"}, "Rate to EUR", "paraphrase", "How many euros is one Swiss franc (CHF) worth in our conversion table?"),
    ("Vendors (rates)", {"Currency": "JPY"}, "Rate to EUR", "paraphrase", "Which conversion factor do we use to turn JPY amounts into euros?"),
    # Contacts
    ("Contacts", {"Contact": "Henrik Brenner"}, "Phone", "direct", "What is the Phone number of Henrik Brenner?"),
    ("Contacts", {"Contact": "Selma Kowalski"}, "Phone", "paraphrase", "How can I reach Selma Kowalski by telephone?"),
    ("Contacts", {"Contact": "Lukas Laurent"}, "Role", "direct", "What Role does Lukas Laurent have?"),
    ("Contacts", {"Contact": "Kofi Svoboda"}, "Role", "paraphrase", "What is Kofi Svoboda's job at the supplier?"),
    ("Contacts", {"Contact": "Matteo Dahl"}, "Phone", "paraphrase", "Which number should I dial to get hold of Matteo Dahl?"),
    # Budget – several rows per cost centre, the question names the item too
    ("FY2026", {"Cost centre": "CC-310", "Item": "Travel"}, "Q3", "direct", "What is the Q3 amount for Travel in CC-310?"),
    ("FY2026", {"Cost centre": "CC-310", "Item": "Training"}, "Q1", "direct", "What is the Q1 amount for Training in CC-310?"),
    ("FY2026", {"Cost centre": "CC-320", "Item": "Hardware"}, "Q2", "paraphrase", "How much is planned for hardware in cost centre CC-320 in the second quarter?"),
    ("FY2026", {"Cost centre": "CC-330", "Item": "Catering"}, "Share", "direct", "What is the Share of Catering in CC-330?"),
    ("FY2026", {"Cost centre": "CC-420", "Item": "Recruiting"}, "Share", "paraphrase", "What percentage of the total budget goes to recruiting at CC-420?"),
    ("FY2026", {"Cost centre": "CC-340", "Item": "Software licences"}, "Q4", "direct", "What is the Q4 amount for Software licences in CC-340?"),
    ("FY2026", {"Cost centre": "CC-330", "Item": "Events"}, "Q3", "paraphrase", "How much did CC-330 budget for events in the third quarter?"),
    ("FY2026", {"Cost centre": "CC-510", "Item": "Office supplies"}, "Q4", "paraphrase", "What's the fourth-quarter budget for office supplies at CC-510?"),
    ("FY2026", {"Cost centre": "CC-410", "Item": "Consulting"}, "Q2", "direct", "What is the Q2 amount for Consulting in CC-410?"),
    ("FY2026", {"Cost centre": "CC-420", "Item": "Training"}, "Share", "paraphrase", "What portion of the FY2026 budget does training under CC-420 take up?"),
    # Stock – part numbers that start with digits
    ("Stock", {"Part no.": "6204-2RS"}, "Qty", "direct", "What is the Qty of part 6204-2RS?"),
    ("Stock", {"Part no.": "3M-9001"}, "Qty", "paraphrase", "How many 3M-9001 do we have on the shelf?"),
    ("Stock", {"Part no.": "6305-2Z"}, "Bin", "direct", "Which Bin is 6305-2Z stored in?"),
    ("Stock", {"Part no.": "12-0045"}, "Bin", "paraphrase", "Where in the warehouse do I find 12-0045?"),
    ("Stock", {"Part no.": "608-2RS"}, "Reorder level", "direct", "What is the Reorder level for 608-2RS?"),
    ("Stock", {"Part no.": "80-1150"}, "Last counted", "paraphrase", "When did we last do a count of 80-1150?"),
    ("Stock", {"Part no.": "4711-B"}, "Description", "paraphrase", "What exactly is part 4711-B?"),
    # Returns – second table stacked below the stock table
    ("Stock (Returns)", {"Return ID": "R-5521"}, "Reason", "direct", "What is the Reason for return R-5521?"),
    ("Stock (Returns)", {"Return ID": "R-5545"}, "Reason", "paraphrase", "Why was R-5545 sent back?"),
    ("Stock (Returns)", {"Return ID": "R-5550"}, "Part no.", "paraphrase", "Which part was returned under R-5550?"),
    ("Stock (Returns)", {"Return ID": "R-5596"}, "Date", "direct", "What is the Date of return R-5596?"),
]

# (group, real id that must exist, question) – the asked attribute is not in the table
NEAR_MISS = [
    ("Rooms", "B-2.25", "What is the floor area in square metres of room B-2.25?"),
    ("Rooms", "C-0.22", "Is room C-0.22 wheelchair accessible?"),
    ("Rooms", "D-1.01", "What is the hourly rental fee for room D-1.01?"),
    ("Vendors", "V-1005", "What currency does V-1005 invoice in?"),
    ("Vendors", "V-1009", "What is the Rate to EUR for vendor V-1009?"),
    ("Vendors", "V-1037", "What is the VAT number of V-1037?"),
    ("Vendors (rates)", "GBP", "What payment terms apply to vendors who invoice in GBP?"),
    ("Vendors", "Nordlicht Logistik AG", "What is the credit limit for Nordlicht Logistik AG?"),
    ("Contacts", "Henrik Brenner", "What is Henrik Brenner's email address?"),
    ("Contacts", "Clara Okafor", "When did we last speak to Clara Okafor?"),
    ("FY2026", "CC-310", "What was the FY2025 actual spend for Travel in CC-310?"),
    ("FY2026", "CC-350", "Who is the budget owner of cost centre CC-350?"),
    ("FY2026", "CC-520", "What is the approved headcount for CC-520?"),
    ("Notes (hidden)", "CC-340", "Why is the Consulting budget in CC-340 frozen?"),
    ("Notes (hidden)", "CC-420", "What is included in the Q3 Recruiting figure for CC-420?"),
    ("Stock", "6204-2RS", "What is the unit price of 6204-2RS?"),
    ("Stock", "6205-ZZ", "Which supplier do we order 6205-ZZ from?"),
    ("Stock", "6305-C3", "How much does one 6305-C3 weigh?"),
    ("Stock", "80-1162", "What is the delivery lead time for 80-1162?"),
    ("Stock (Returns)", "R-5521", "What was the refund amount for return R-5521?"),
    ("Stock (Returns)", "R-5558", "Who approved return R-5558?"),
    ("Stock (Returns)", "R-5538", "Which customer sent back R-5538?"),
]

# (group, made-up id, question)
UNKNOWN = [
    ("Rooms", "E-1.07", "What is the Capacity of room E-1.07?"),
    ("Rooms", "C-2.11", "Does room C-2.11 have a projector?"),
    ("Vendors", "V-1100", "What are the payment terms for vendor V-1100?"),
    ("Vendors", "V-1044", "Which country is vendor V-1044 in?"),
    ("Vendors (rates)", "NOK", "What is the rate of NOK to EUR?"),
    ("Contacts", "Jonas Weber", "What is Jonas Weber's phone number?"),
    ("FY2026", "CC-360", "What is the Q2 amount for Travel in CC-360?"),
    ("FY2026", "CC-610", "What is the Share of Hardware in CC-610?"),
    ("Stock", "6207-2RS", "What is the Qty of 6207-2RS?"),
    ("Stock", "3M-9500", "Which bin holds 3M-9500?"),
    ("Stock", "7310-B", "What is the reorder level for 7310-B?"),
    ("Stock (Returns)", "R-5620", "What was the reason for return R-5620?"),
    ("Stock (Returns)", "R-5570", "On what date was return R-5570 logged?"),
]

FILE_OF = {"Rooms": "facilities.xlsx", "Vendors": "vendors.xlsx", "Vendors (rates)": "vendors.xlsx",
           "Contacts": "vendors.xlsx", "FY2026": "budget.xlsx", "Notes (hidden)": "budget.xlsx",
           "Stock": "stock.xlsx", "Stock (Returns)": "stock.xlsx"}


def all_cell_text():
    """Every non-empty cell of every sheet (hidden ones included), as text."""
    out = []
    for p in sorted(DOCS.glob("*.xlsx")):
        for ws in load_workbook(p).worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if c.value is not None:
                        out.append((p.name, ws.title, str(c.value), render(c)))
    return out


def main():
    T = load_tables()
    cells = all_cell_text()
    qs = []
    for group, where, column, style, text in ANSWERABLE:
        row = find_row(T, group, where)
        qs.append({"question": text, "expected": "answer", "category": "answerable",
                   "gold_sources": [T[group][0]], "answer_keys": [key_for(row, column)],
                   "column": column, "style": style, "group": group})
    for group, real, text in NEAR_MISS:
        fname = FILE_OF[group]
        assert real in text
        assert any(f == fname and real in s for f, _, s, _ in cells), (real, fname)
        qs.append({"question": text, "expected": "refuse", "category": "near_miss",
                   "gold_sources": [fname], "answer_keys": [], "group": group})
    for group, fake, text in UNKNOWN:
        assert fake in text
        hits = [(f, s) for f, _, s, r in cells if fake.lower() in s.lower() or fake.lower() in (r or "").lower()]
        assert not hits, (fake, hits[:3])
        qs.append({"question": text, "expected": "refuse", "category": "unknown_entity",
                   "gold_sources": [], "answer_keys": [], "group": group})
    assert len({q["question"] for q in qs}) == len(qs)
    random.Random(SEED).shuffle(qs)
    with open(HERE / "questions.jsonl", "w", encoding="utf-8") as fh:
        for q in qs:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    n = {c: sum(q["category"] == c for q in qs) for c in ("answerable", "near_miss", "unknown_entity")}
    st = {s: sum(q.get("style") == s for q in qs) for s in ("direct", "paraphrase")}
    print(len(qs), n, st)


if __name__ == "__main__":
    main()
