"""Generate the tables-e workbooks (messy real-world layouts).

Deterministic: every random choice comes from random.Random(SEED).
Run:  /work/main/.venv/bin/python bench/data/tables-e/make.py
"""
import datetime as dt
import random
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Font, PatternFill

SEED = 20260511
HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
BOLD = Font(bold=True)
TITLE = Font(bold=True, size=14)
HEAD_FILL = PatternFill("solid", fgColor="DDEBF7")
# fixed workbook timestamps so the files are byte-stable
STAMP = dt.datetime(2026, 3, 2, 9, 0, 0)

FIRST = ["Anna", "Jonas", "Mira", "Tomasz", "Lea", "Pieter", "Sofia", "Henrik",
         "Clara", "Matteo", "Ines", "Lukas", "Nora", "Emil", "Paula", "Oskar",
         "Greta", "Ruben", "Elif", "Marek", "Hanna", "Bastien", "Ida", "Kofi",
         "Yara", "Dario", "Freya", "Milan", "Selma", "Aurelio"]
LAST = ["Kowalski", "Brenner", "Lindqvist", "Novak", "Fischer", "de Vries",
        "Rossi", "Dahl", "Schulte", "Bianchi", "Moreau", "Horvat", "Jansen",
        "Keller", "Okafor", "Petrov", "Hughes", "Varga", "Nielsen", "Costa",
        "Wagner", "Laurent", "Berg", "Mensah", "Aydin", "Ferri", "Holm",
        "Krause", "Svoboda", "Almeida"]


def stamp(wb):
    wb.properties.created = STAMP
    wb.properties.modified = STAMP
    wb.properties.creator = "office"


def header(ws, row, col, names):
    for i, n in enumerate(names):
        c = ws.cell(row=row, column=col + i, value=n)
        c.font = BOLD
        c.fill = HEAD_FILL


def unique_names(rng, n):
    pairs = [(f, l) for f in FIRST for l in LAST]
    rng.shuffle(pairs)
    return [f"{f} {l}" for f, l in pairs[:n]]


# ---------------------------------------------------------------- facilities
def make_facilities(rng):
    wb = Workbook()
    ws = wb.active
    ws.title = "Rooms"
    ws["A1"] = "Room directory – Campus North"
    ws["A1"].font = TITLE
    ws["A2"] = "Last updated 2 March 2026 by Facilities Office (please report errors to ext. 4410)"
    ws["A2"].font = Font(italic=True)
    header(ws, 4, 1, ["Room", "Building", "Floor", "Capacity", "Projector", "Booking contact"])
    contacts = {b: unique_names(rng, 3) for b in "ABCD"}
    r = 5
    counts = {"A": 16, "B": 15, "C": 14, "D": 15}
    for gi, b in enumerate("ABCD"):
        if gi > 0:
            r += 1  # empty row before the group label
        lab = ws.cell(row=r, column=1, value=f"Building {b}")
        lab.font = BOLD
        r += 1
        seen = set()
        rooms = []
        while len(rooms) < counts[b]:
            floor = rng.randint(0, 4)
            num = rng.randint(1, 40)
            rid = f"{b}-{floor}.{num:02d}"
            if rid in seen:
                continue
            seen.add(rid)
            rooms.append((floor, num, rid))
        rooms.sort()
        for floor, num, rid in rooms:
            cap = rng.choice([6, 8, 10, 12, 16, 20, 24, 30, 36, 40, 48, 60, 80, 120])
            proj = cap >= 16 and rng.random() < 0.8 or rng.random() < 0.15
            contact = None
            if rng.random() > 0.18:
                n = rng.choice(contacts[b])
                f, l = n.split(" ", 1)
                contact = f"{f[0].lower()}.{l.replace(' ', '').lower()}@campus-north.example"
            ws.cell(row=r, column=1, value=rid)
            ws.cell(row=r, column=2, value=b)
            ws.cell(row=r, column=3, value=floor)
            ws.cell(row=r, column=4, value=cap)
            ws.cell(row=r, column=5, value=bool(proj))
            ws.cell(row=r, column=6, value=contact)
            r += 1
    for col, w in zip("ABCDEF", [12, 10, 7, 10, 11, 36]):
        ws.column_dimensions[col].width = w
    stamp(wb)
    wb.save(DOCS / "facilities.xlsx")


# ---------------------------------------------------------------- vendors
COMPANIES = ["Brandt & Vogel GmbH", "Nordlicht Logistik AG", "Atelier Moreau SARL",
             "Polska Stal Sp. z o.o.", "Keller Präzision GmbH", "Helix Components Ltd",
             "Van Dijk Verpakkingen BV", "Fratelli Ferri S.r.l.", "Svoboda Elektro s.r.o.",
             "Bergström Trä AB", "Oakridge Office Supplies Ltd", "Alpine Druck AG",
             "Costa & Filhos Lda", "Danubia Metall Kft.", "Jansen Catering BV",
             "Hughes Facilities plc", "Lindholm Data ApS", "Mensah Textiles Ltd",
             "Iberia Cargo S.L.", "Tatra Tools a.s.", "Rheinland Chemie GmbH",
             "Baltic Print UAB", "Sundsvall Kraft AB", "Aydin Tekstil A.Ş.",
             "Schulte Haustechnik GmbH", "Laurent Conseil SAS", "Pieterse Glas BV",
             "Krause Kabel GmbH", "Holm Maritime AS", "Varga Software Zrt."]
COUNTRY = ["Germany", "Germany", "France", "Poland", "Germany", "United Kingdom",
           "Netherlands", "Italy", "Czech Republic", "Sweden", "United Kingdom",
           "Switzerland", "Portugal", "Hungary", "Netherlands", "United Kingdom",
           "Denmark", "Ghana", "Spain", "Slovakia", "Germany", "Lithuania", "Sweden",
           "Turkey", "Germany", "France", "Netherlands", "Germany", "Norway", "Hungary"]
PREFIX = {"Germany": "0049", "France": "0033", "Poland": "0048", "United Kingdom": "0044",
          "Netherlands": "0031", "Italy": "0039", "Czech Republic": "00420",
          "Sweden": "0046", "Switzerland": "0041", "Portugal": "00351", "Hungary": "0036",
          "Denmark": "0045", "Ghana": "00233", "Spain": "0034", "Slovakia": "00421",
          "Lithuania": "00370", "Turkey": "0090", "Norway": "0047"}
RATES = [("USD", 0.9214), ("GBP", 1.1687), ("CHF", 1.0432), ("SEK", 0.0871),
         ("PLN", 0.2318), ("JPY", 0.0061)]


def make_vendors(rng):
    wb = Workbook()
    ws = wb.active
    ws.title = "Vendors"
    ids = sorted(rng.sample(range(1003, 1098), 30))
    header(ws, 1, 1, ["Vendor ID", "Vendor", "Country", "Payment terms (days)"])
    header(ws, 1, 6, ["Currency", "Rate to EUR"])
    vendors = []
    for i, vid in enumerate(ids):
        vendors.append((f"V-{vid}", COMPANIES[i], COUNTRY[i]))
        ws.cell(row=2 + i, column=1, value=f"V-{vid}")
        ws.cell(row=2 + i, column=2, value=COMPANIES[i])
        ws.cell(row=2 + i, column=3, value=COUNTRY[i])
        ws.cell(row=2 + i, column=4, value=rng.choice([14, 30, 30, 30, 45, 60, 60, 90]))
    for j, (cur, rate) in enumerate(RATES):
        ws.cell(row=2 + j, column=6, value=cur)
        c = ws.cell(row=2 + j, column=7, value=rate)
        c.number_format = "0.0000"
    for col, w in zip("ABCDEFG", [11, 30, 16, 20, 4, 10, 12]):
        ws.column_dimensions[col].width = w

    wc = wb.create_sheet("Contacts")
    header(wc, 1, 1, ["Vendor ID", "Contact", "Role", "Phone"])
    names = unique_names(rng, 40)
    owners = [v for v in vendors] + rng.sample(vendors, 10)
    owners.sort(key=lambda v: v[0])
    roles = ["Accounts receivable", "Sales", "Key account manager", "Dispatch",
             "Technical support", "Managing director", "Quality"]
    for i, ((vid, _, country), name) in enumerate(zip(owners, names)):
        pre = PREFIX[country]
        phone = f"{pre} {rng.randint(20, 89)} {rng.randint(100, 9999):04d} {rng.randint(0, 999):03d}"
        if i % 7 == 3:
            phone = f"{pre} {rng.randint(20, 89)} 0{rng.randint(10, 99)} {rng.randint(1000, 9999)}"
        wc.cell(row=2 + i, column=1, value=vid)
        wc.cell(row=2 + i, column=2, value=name)
        wc.cell(row=2 + i, column=3, value=rng.choice(roles))
        c = wc.cell(row=2 + i, column=4, value=phone)
        c.number_format = "@"
    for col, w in zip("ABCD", [11, 22, 22, 22]):
        wc.column_dimensions[col].width = w
    stamp(wb)
    wb.save(DOCS / "vendors.xlsx")


# ---------------------------------------------------------------- budget
BUDGET_ROWS = [
    ("CC-310", "Travel"), ("CC-310", "Software licences"), ("CC-310", "Training"),
    ("CC-320", "Hardware"), ("CC-320", "Travel"), ("CC-320", "Office supplies"),
    ("CC-330", "Events"), ("CC-330", "Catering"), ("CC-330", "Travel"), ("CC-330", "Printing"),
    ("CC-340", "Consulting"), ("CC-340", "Software licences"),
    ("CC-350", "Maintenance"), ("CC-350", "Hardware"), ("CC-350", "Training"),
    ("CC-410", "Travel"), ("CC-410", "Consulting"),
    ("CC-420", "Recruiting"), ("CC-420", "Training"), ("CC-420", "Events"),
    ("CC-510", "Maintenance"), ("CC-510", "Office supplies"),
    ("CC-520", "Software licences"), ("CC-520", "Hardware"),
]


def amount(rng):
    kind = rng.random()
    if kind < 0.2:
        return float(rng.randint(4, 90) * 100)          # e.g. 4200.00
    if kind < 0.4:
        return rng.randint(1500, 60000) + 0.5           # e.g. 12345.50
    return round(rng.uniform(350, 75000), 2)


def make_budget(rng):
    wb = Workbook()
    ws = wb.active
    ws.title = "FY2026"
    header(ws, 1, 1, ["Cost centre", "Item", "Q1", "Q2", "Q3", "Q4", "Share"])
    rows = []
    for cc, item in BUDGET_ROWS:
        qs = [amount(rng) for _ in range(4)]
        if item == "Events":
            qs[0] = None  # no events planned in Q1
        rows.append([cc, item] + qs)
    totals = [sum(q for q in r[2:] if q is not None) for r in rows]
    grand = sum(totals)
    for i, r in enumerate(rows):
        share = round(totals[i] / grand, 4)
        if round(share * 10000) % 10 == 5:    # avoid a display tie at 0.0%
            share = round(share + 0.0001, 4)
        for j, v in enumerate(r):
            c = ws.cell(row=2 + i, column=1 + j, value=v)
            if j >= 2:
                c.number_format = "#,##0.00"
        c = ws.cell(row=2 + i, column=7, value=share)
        c.number_format = "0.0%"
    for col, w in zip("ABCDEFG", [12, 20, 13, 13, 13, 13, 8]):
        ws.column_dimensions[col].width = w
    wn = wb.create_sheet("Notes")
    wn["A1"] = "Internal notes – controlling only"
    wn["A2"] = ("CC-340 Consulting: budget frozen until 1 May 2026 because the contract "
                "with Brandt & Vogel GmbH is under legal review.")
    wn["A3"] = ("CC-420 Recruiting: the Q3 figure includes a confidential severance "
                "settlement for one departing team lead.")
    wn.sheet_state = "hidden"
    stamp(wb)
    wb.save(DOCS / "budget.xlsx")


# ---------------------------------------------------------------- stock
def make_stock(rng):
    wb = Workbook()
    ws = wb.active
    ws.title = "Stock"
    header(ws, 1, 1, ["Part no.", "Description", "Bin", "Qty", "Reorder level", "Last counted"])
    dims = {"608": (8, 22, 7), "625": (5, 16, 5), "6000": (10, 26, 8), "6001": (12, 28, 8),
            "6002": (15, 32, 9), "6003": (17, 35, 10), "6004": (20, 42, 12),
            "6201": (12, 32, 10), "6202": (15, 35, 11), "6203": (17, 40, 12),
            "6204": (20, 47, 14), "6205": (25, 52, 15), "6206": (30, 62, 16),
            "6302": (15, 42, 13), "6304": (20, 52, 15), "6305": (25, 62, 17),
            "6306": (30, 72, 19)}
    sfx = {"2RS": "rubber seals both sides", "ZZ": "metal shields both sides",
           "2Z": "shielded", "C3": "open, C3 clearance"}
    parts = []
    for s, (d, D, B) in dims.items():
        for k, desc in sfx.items():
            parts.append((f"{s}-{k}", f"Deep groove ball bearing {d}x{D}x{B}, {desc}"))
    rng.shuffle(parts)
    parts = parts[:62]
    tapes = [("3M-9001", "Double-sided tape 19 mm x 50 m"), ("3M-9040", "Masking tape 25 mm"),
             ("3M-9088", "Acrylic foam tape 12 mm"), ("3M-9473", "Transfer tape 25 mm x 55 m"),
             ("3M-9244", "Aluminium foil tape 50 mm"), ("3M-9415", "Removable tape 19 mm"),
             ("4711-B", "O-ring kit, NBR, 382 pcs"), ("4711-C", "O-ring kit, FKM, 225 pcs"),
             ("12-0045", "Hex nut M12, zinc, box of 100"), ("12-0046", "Hex nut M16, zinc, box of 50"),
             ("12-0210", "Washer M12 DIN 125, box of 200"), ("16-3307", "Circlip DIN 471 20 mm"),
             ("16-3308", "Circlip DIN 471 25 mm"), ("80-1150", "Timing belt HTD 8M-1200"),
             ("80-1162", "Timing belt HTD 5M-450"), ("230-ES", "Grease cartridge EP2, 400 g"),
             ("230-FG", "Food-grade grease, 400 g"), ("5W-30L", "Gear oil 5W-30, 1 l")]
    parts += tapes
    rng.shuffle(parts)
    base = dt.date(2025, 11, 3)
    r = 2
    for pn, desc in parts:
        bin_ = f"R{rng.randint(1, 14):02d}-{rng.choice('ABCDE')}{rng.randint(1, 6)}"
        qty = rng.randint(0, 480)
        reorder = rng.choice([10, 20, 25, 40, 50, 100])
        counted = base + dt.timedelta(days=rng.randint(0, 150))
        vals = [pn, desc, bin_, qty, reorder, dt.datetime.combine(counted, dt.time())]
        for j, v in enumerate(vals):
            c = ws.cell(row=r, column=1 + j, value=v)
        c.number_format = "yyyy-mm-dd"
        r += 1
    r += 1  # empty row
    ws.cell(row=r, column=1, value="Returns").font = TITLE
    r += 1
    header(ws, r, 1, ["Return ID", "Part no.", "Reason", "Date"])
    r += 1
    reasons = ["Damaged in transit", "Wrong part delivered", "Seal defective",
               "Ordered in error", "Excess stock", "Corroded on arrival",
               "Failed incoming inspection", "Customer cancelled order"]
    rids = sorted(rng.sample(range(5501, 5600), 15))
    rdate = dt.date(2026, 1, 5)
    for rid in rids:
        rdate += dt.timedelta(days=rng.randint(1, 6))
        vals = [f"R-{rid}", rng.choice(parts)[0], rng.choice(reasons),
                dt.datetime.combine(rdate, dt.time())]
        for j, v in enumerate(vals):
            c = ws.cell(row=r, column=1 + j, value=v)
        c.number_format = "yyyy-mm-dd"
        r += 1
    for col, w in zip("ABCDEF", [12, 48, 26, 8, 13, 13]):
        ws.column_dimensions[col].width = w
    stamp(wb)
    wb.save(DOCS / "stock.xlsx")


def main():
    DOCS.mkdir(parents=True, exist_ok=True)
    make_facilities(random.Random(SEED + 1))
    make_vendors(random.Random(SEED + 2))
    make_budget(random.Random(SEED + 3))
    make_stock(random.Random(SEED + 4))
    print("wrote", sorted(p.name for p in DOCS.iterdir()))


if __name__ == "__main__":
    main()
