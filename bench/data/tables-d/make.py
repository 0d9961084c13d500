"""Generate the tables-d document set (deterministic).

Run:  /work/main/.venv/bin/python bench/data/tables-d/make.py

Creates under bench/data/tables-d/docs/:
  assets.xlsx     sheets "Laptops" (title row + blank row + header), "Monitors",
                  and a HIDDEN sheet "Costs" (purchase cost per asset tag)
  contracts.xlsx  one sheet "Contracts" of vendor contracts
  incidents.csv   incident log

All values are synthetic. Seed: 20260417.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import random
import zipfile
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Font

SEED = 20260417
HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"
FIXED_TS = dt.datetime(2026, 1, 15, 9, 0, 0)

PEOPLE = [
    "Maria Lopez", "James O'Connor", "Aisha Bello", "Lukas Schmidt", "Priya Nair",
    "Tomasz Kowalski", "Chen Wei", "Fatima Zahra", "Oliver Bennett", "Sofia Rossi",
    "Mateo García", "Hannah Fischer", "Kwame Mensah", "Yuki Tanaka", "Elena Petrova",
    "Daniel Kim", "Ingrid Johansson", "Rahul Mehta", "Chloé Martin", "Samuel Adeyemi",
    "Nora Lindqvist", "Diego Fernández", "Amelia Clarke", "Hiroshi Sato", "Leila Haddad",
    "Piotr Nowak", "Grace Okafor", "Marco Bianchi", "Anna Kowalczyk", "Ben Carter",
    "Zoë Müller", "Arjun Reddy", "Isabel Moreno", "Finn O'Sullivan", "Mei Ling Tan",
    "Victor Dubois", "Olga Ivanova", "Ethan Brooks", "Sara Haugen", "Ahmed Hassan",
    "Laura Weber", "Nikolai Popov", "Ruth Abebe", "Jonas Berg", "Camila Souza",
    "Tariq Aziz", "Emma Thompson", "Pedro Alves", "Siobhán Walsh", "Kenji Watanabe",
    "Lucía Navarro", "Adam Nowicki", "Beatriz Costa", "Omar Farouk", "Julia Becker",
    "Stefan Novak", "Ngozi Eze", "Henrik Dahl", "Paula Ribeiro", "Thomas Wright",
]

LAPTOP_MODELS = [
    "Lenovo ThinkPad X1 Carbon Gen 11", "Lenovo ThinkPad T14 Gen 4", "Lenovo ThinkPad E14 Gen 5",
    "Dell Latitude 5440", "Dell Latitude 7440", "Dell XPS 13 9340", "HP EliteBook 840 G10",
    "HP ProBook 450 G9", "Apple MacBook Air 13 M2", "Apple MacBook Pro 14 M3",
    "Microsoft Surface Laptop 5", "Framework Laptop 13",
]
LAPTOP_LOCATIONS = [
    "Berlin HQ", "Berlin HQ", "Berlin HQ", "Munich office", "Lisbon office",
    "Warsaw office", "Remote", "Remote",
]
MONITOR_SPECS = [
    (24, "1920x1080"), (24, "1920x1200"), (27, "2560x1440"), (27, "3840x2160"),
    (23.8, "1920x1080"), (31.5, "3840x2160"), (34, "3440x1440"), (21.5, "1920x1080"),
]
DESK_FLOORS = {"Berlin HQ": "BER", "Munich office": "MUC", "Lisbon office": "LIS"}

VENDORS_SERVICES = [
    ("Northwind Cloud GmbH", ["IaaS hosting", "Object storage", "Managed Kubernetes"]),
    ("Helix Networks", ["WAN connectivity", "Managed firewall", "SD-WAN licences"]),
    ("Brightdesk Software", ["Service desk licences", "Asset management SaaS"]),
    ("Datacore Backup AG", ["Offsite backup", "Disaster recovery site"]),
    ("Sparrow Telecom", ["Mobile phone plans", "SIP trunks"]),
    ("Cleanline Facility Services", ["Office cleaning", "Waste disposal"]),
    ("PrintPoint Leasing", ["Printer leasing", "Print management software"]),
    ("Vantage Security", ["24/7 SOC monitoring", "Penetration testing", "Security awareness training"]),
    ("Orbit CRM Ltd", ["CRM licences", "CRM premium support"]),
    ("Kestrel Payroll", ["Payroll processing", "HR portal"]),
    ("Bluefjord Data", ["Data warehouse", "BI dashboards"]),
    ("Meridian Logistics IT", ["Hardware courier", "Device disposal"]),
    ("Atlas Power Systems", ["UPS maintenance", "Generator servicing"]),
    ("Quillon Legal Tech", ["Contract management SaaS", "E-signature licences"]),
]

INC_SERVICES = [
    "payments-api", "auth-service", "customer-portal", "search", "email-gateway",
    "vpn", "billing-batch", "data-warehouse", "mobile-backend", "file-sync",
]
ROOT_CAUSES = [
    "expired TLS certificate", "disk full on db-03", "bad config push",
    "DNS misconfiguration", "memory leak after deploy", "upstream provider outage",
    "exhausted DB connection pool", "overlapping cron jobs", "network switch failure",
    "rate limit set too low", "schema migration lock", "expired API token",
    "cache stampede", "load balancer health check misconfigured", "full message queue",
    "clock drift on auth nodes", "faulty feature flag", "storage array firmware bug",
]
SEV_WEIGHTS = [("SEV1", 1), ("SEV2", 3), ("SEV3", 6), ("SEV4", 5)]


def unique_ids(rng: random.Random, n: int, make) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        v = make(rng)
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def rand_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def add_years(d: dt.date, years: int) -> dt.date:
    try:
        return d.replace(year=d.year + years)
    except ValueError:  # 29 Feb
        return d.replace(year=d.year + years, day=28)


def normalise_zip(path: Path) -> None:
    """Rewrite the xlsx zip with fixed member timestamps so output is byte-stable."""
    with zipfile.ZipFile(path) as zin:
        items = [(i.filename, zin.read(i.filename)) for i in zin.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, data in items:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 15, 9, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(info, data)
    path.write_bytes(buf.getvalue())


def fix_props(wb: Workbook) -> None:
    wb.properties.created = FIXED_TS
    wb.properties.modified = FIXED_TS
    wb.properties.creator = "tables-d generator"


def set_date(cell, value: dt.date) -> None:
    cell.value = value
    cell.number_format = "yyyy-mm-dd"


def make_assets(rng: random.Random) -> None:
    wb = Workbook()
    fix_props(wb)

    # ---- Laptops -------------------------------------------------------
    ws = wb.active
    ws.title = "Laptops"
    ws["A1"] = "IT asset register 2026"
    ws["A1"].font = Font(bold=True, size=14)
    # row 2 intentionally empty
    header = ["Asset Tag", "Assigned To", "Model", "Purchase Date", "Warranty Until",
              "RAM (GB)", "OS", "Location"]
    for c, h in enumerate(header, start=1):
        ws.cell(row=3, column=c, value=h).font = Font(bold=True)
    lt_tags = unique_ids(rng, 150, lambda r: f"LT-{r.randint(1000, 9999):05d}")
    costs: list[tuple[str, float]] = []
    for i, tag in enumerate(lt_tags):
        row = 4 + i
        model = rng.choice(LAPTOP_MODELS)
        bought = rand_date(rng, dt.date(2020, 1, 1), dt.date(2025, 12, 15))
        years = rng.choice([2, 3, 3, 3, 4, 5])
        warranty = add_years(bought, years)
        if model.startswith("Apple"):
            os_ = rng.choice(["macOS 14 Sonoma", "macOS 15 Sequoia"])
            ram = rng.choice([8, 16, 16, 24, 36])
        else:
            os_ = rng.choice(["Windows 11 Pro", "Windows 11 Pro", "Windows 11 Enterprise",
                              "Windows 10 Pro", "Ubuntu 22.04 LTS", "Ubuntu 24.04 LTS"])
            ram = rng.choice([8, 16, 16, 32, 32, 64])
        in_stock = rng.random() < 0.06
        location = "IT storage room" if in_stock else rng.choice(LAPTOP_LOCATIONS)
        assigned = None if in_stock else rng.choice(PEOPLE)
        ws.cell(row=row, column=1, value=tag)
        ws.cell(row=row, column=2, value=assigned)
        ws.cell(row=row, column=3, value=model)
        set_date(ws.cell(row=row, column=4), bought)
        set_date(ws.cell(row=row, column=5), warranty)
        ws.cell(row=row, column=6, value=ram)
        ws.cell(row=row, column=7, value=os_)
        ws.cell(row=row, column=8, value=location)
        base = 2400 if model.startswith("Apple MacBook Pro") else rng.choice([950, 1150, 1390, 1620, 1890])
        costs.append((tag, round(base + rng.randint(0, 39999) / 100, 2)))
    for col, width in zip("ABCDEFGH", [12, 20, 34, 14, 15, 10, 22, 16]):
        ws.column_dimensions[col].width = width

    # ---- Monitors ------------------------------------------------------
    wm = wb.create_sheet("Monitors")
    wm.append(["Asset Tag", "Size (in)", "Resolution", "Assigned To", "Desk"])
    for c in range(1, 6):
        wm.cell(row=1, column=c).font = Font(bold=True)
    mn_tags = unique_ids(rng, 80, lambda r: f"MN-{r.randint(10000, 39999)}")
    for tag in mn_tags:
        size, res = rng.choice(MONITOR_SPECS)
        site = rng.choice(list(DESK_FLOORS))
        desk = f"{DESK_FLOORS[site]}-{rng.randint(1, 5)}.{rng.randint(1, 48):02d}"
        hot_desk = rng.random() < 0.12
        assigned = None if hot_desk else rng.choice(PEOPLE)
        wm.append([tag, size, res, assigned, desk])
        costs.append((tag, round(rng.choice([139, 189, 249, 329, 479, 699]) + rng.randint(0, 4999) / 100, 2)))
    for col, width in zip("ABCDE", [12, 10, 12, 20, 10]):
        wm.column_dimensions[col].width = width

    # ---- Costs (hidden) ------------------------------------------------
    wc = wb.create_sheet("Costs")
    wc.append(["Asset Tag", "Purchase Cost (EUR)", "Cost Centre"])
    for tag, cost in costs:
        wc.append([tag, cost, rng.choice(["CC-100 IT", "CC-210 Sales", "CC-340 Engineering", "CC-450 Finance"])])
    wc.sheet_state = "hidden"

    out = DOCS / "assets.xlsx"
    wb.save(out)
    normalise_zip(out)


def make_contracts(rng: random.Random) -> None:
    wb = Workbook()
    fix_props(wb)
    ws = wb.active
    ws.title = "Contracts"
    header = ["Contract No", "Vendor", "Service", "Start", "End", "Annual Value (EUR)",
              "Auto-renew", "Notice Period (days)", "Owner"]
    ws.append(header)
    for c in range(1, len(header) + 1):
        ws.cell(row=1, column=c).font = Font(bold=True)
    nos = unique_ids(rng, 120, lambda r: f"CT-{r.choice([2022, 2023, 2024, 2025, 2025, 2026])}-{r.randint(1, 999):04d}")
    nos.sort()
    for i, no in enumerate(nos):
        row = 2 + i
        year = int(no[3:7])
        vendor, services = rng.choice(VENDORS_SERVICES)
        service = rng.choice(services)
        start = rand_date(rng, dt.date(year, 1, 1), dt.date(year, 12, 1))
        start = start.replace(day=1) if rng.random() < 0.6 else start
        end = add_years(start, rng.choice([1, 1, 2, 3])) - dt.timedelta(days=1)
        if rng.random() < 0.55:
            value = rng.randint(12, 960) * 100  # round figure, stored as int
        else:
            value = round(rng.randint(150000, 9600000) / 100, 2)
            if float(value).is_integer():
                value = int(value)
        auto = rng.random() < 0.5
        notice = rng.choice([14, 30, 30, 60, 90, 90, 180])
        owner = rng.choice(PEOPLE)
        ws.cell(row=row, column=1, value=no)
        ws.cell(row=row, column=2, value=vendor)
        ws.cell(row=row, column=3, value=service)
        set_date(ws.cell(row=row, column=4), start)
        set_date(ws.cell(row=row, column=5), end)
        ws.cell(row=row, column=6, value=value)  # General format: shown as stored
        ws.cell(row=row, column=7, value=auto)
        ws.cell(row=row, column=8, value=notice)
        ws.cell(row=row, column=9, value=owner)
    for col, width in zip("ABCDEFGHI", [14, 26, 28, 12, 12, 18, 11, 20, 20]):
        ws.column_dimensions[col].width = width
    out = DOCS / "contracts.xlsx"
    wb.save(out)
    normalise_zip(out)


def make_incidents(rng: random.Random) -> None:
    ids = unique_ids(rng, 200, lambda r: f"INC-{r.randint(70000, 79999)}")
    sev_pool = [s for s, w in SEV_WEIGHTS for _ in range(w)]
    rows = []
    t = dt.datetime(2025, 9, 1, 0, 0, 0)
    for inc in sorted(ids):
        t += dt.timedelta(minutes=rng.randint(60, 1400))
        t = t.replace(second=rng.randint(0, 59))
        sev = rng.choice(sev_pool)
        still_open = rng.random() < 0.07
        if still_open:
            resolved = ""
            cause = rng.choice(ROOT_CAUSES + ["under investigation", "under investigation"])
        else:
            minutes = {"SEV1": (20, 300), "SEV2": (30, 600), "SEV3": (60, 2880), "SEV4": (120, 8000)}[sev]
            r_at = t + dt.timedelta(minutes=rng.randint(*minutes), seconds=rng.randint(0, 59))
            resolved = r_at.strftime("%Y-%m-%dT%H:%M:%SZ")
            cause = rng.choice(ROOT_CAUSES)
        rows.append({
            "incident_id": inc,
            "service": rng.choice(INC_SERVICES),
            "severity": sev,
            "opened_at": t.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "resolved_at": resolved,
            "root_cause": cause,
            "on_call": rng.choice(PEOPLE),
        })
    with open(DOCS / "incidents.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main() -> None:
    DOCS.mkdir(parents=True, exist_ok=True)
    make_assets(random.Random(SEED))
    make_contracts(random.Random(SEED + 1))
    make_incidents(random.Random(SEED + 2))
    for p in sorted(DOCS.iterdir()):
        print(p.relative_to(HERE), p.stat().st_size)


if __name__ == "__main__":
    main()
