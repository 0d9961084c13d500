#!/usr/bin/env python3
"""Generate the four source documents in docs/ (fixed seed 20240417)."""
import csv, random, datetime, os, html

SEED = 20240417
rng = random.Random(SEED)
D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs")
os.makedirs(D, exist_ok=True)

# ---------------------------------------------------------------- invoices.csv
customers = ["Halvorsen Logistik AS", "Brightwater Dental Group", "Kessler Maschinenbau GmbH",
             "Oakridge Veterinary Clinic", "Nordlicht Media", "Castellano Foods S.L.",
             "Pinecrest Architects", "Vantaa Steelworks Oy", "Blue Heron Bakery",
             "Marlowe & Finch Legal", "Tidewater Marine Supply", "Aurora Textiles",
             "Delacroix Consulting SARL", "Greenfield Agritech", "Summit Peak Outfitters",
             "Ravensbourne Printing Ltd", "Lindqvist Interiors AB", "Copperleaf Hospitality",
             "Zephyr Wind Services", "Mosaic Learning Centre"]
statuses = ["Paid", "Paid", "Paid", "Unpaid", "Overdue", "Partially Paid", "Disputed"]
methods = ["SEPA transfer", "Credit card", "Direct debit", "Bank wire", "PayPal"]
centres = ["CC-100 Sales", "CC-210 Services", "CC-330 Licensing", "CC-415 Support", "CC-520 Training"]
terms = [14, 30, 30, 45, 60]
inv_cols = ["invoice_id", "Customer Name", "Issue Date", "due_date", "Amount (EUR)",
            "VAT Rate (%)", "qty", "Status", "payment_method", "PO Number", "Cost Centre"]
inv_rows, used = [], set()
start = datetime.date(2024, 1, 2)
for i in range(184):
    while True:
        n = rng.randint(100, 1999)
        if n not in used:
            used.add(n); break
    issue = start + datetime.timedelta(days=rng.randint(0, 300))
    due = issue + datetime.timedelta(days=rng.choice(terms))
    st = rng.choice(statuses)
    inv_rows.append({
        "invoice_id": f"INV-2024-{n:05d}",
        "Customer Name": rng.choice(customers),
        "Issue Date": issue.isoformat(),
        "due_date": due.isoformat(),
        "Amount (EUR)": f"{rng.randint(120, 48000) + rng.choice([0, 0.5, 0.25, 0.99, 0.4]):.2f}",
        "VAT Rate (%)": rng.choice(["19", "19", "21", "7", "0", "25"]),
        "qty": str(rng.choice([1, 1, 2, 3, 4, 5, 8, 10, 12, 20, 25, 50])),
        "Status": st,
        "payment_method": "" if st in ("Unpaid", "Overdue") else rng.choice(methods),
        "PO Number": "" if rng.random() < 0.3 else f"PO-{rng.randint(40000, 89999)}",
        "Cost Centre": rng.choice(centres),
    })
inv_rows.sort(key=lambda r: (r["Issue Date"], r["invoice_id"]))
with open(os.path.join(D, "invoices.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.DictWriter(f, fieldnames=inv_cols); w.writeheader(); w.writerows(inv_rows)

# -------------------------------------------------------- library_catalogue.csv
first = ["Elena", "Tomas", "Mira", "Jonah", "Priya", "Henrik", "Aiko", "Rafael", "Ingrid", "Samuel",
         "Leonie", "Kwame", "Beatriz", "Oskar", "Nadia", "Felix", "Yusuf", "Clara", "Dmitri", "Hannah"]
last = ["Vasquez", "Lindgren", "Okafor", "Brandt", "Sato", "Moreau", "Kowalski", "Fitzgerald",
        "Haddad", "Nakamura", "Strand", "Petrov", "Abernathy", "Castillo", "Weiss", "Mbeki"]
w1 = ["The Silent", "A Brief History of", "Beyond the", "The Last", "Notes on", "Rivers of",
      "The Quiet", "Maps of", "Letters from", "The Glass", "Echoes of", "Practical",
      "The Hidden", "Winter in", "An Atlas of", "The Lost"]
w2 = ["Harbour", "Lighthouse", "Mathematics", "Orchard", "Cartographer", "Tide", "Machines",
      "Forest", "Kingdom", "Algorithms", "Garden", "Archive", "Valley", "Constellations",
      "Salt", "Bridges", "Memory", "Islands"]
pubs = ["Penguin Random House", "Faber & Faber", "Oxford University Press", "HarperCollins",
        "Suhrkamp", "Gallimard", "MIT Press", "Bloomsbury", "Vintage", "Norton"]
langs = ["English", "English", "English", "German", "French", "Spanish", "Swedish"]
lib_cols = ["Book ID", "Title", "Author", "ISBN-13", "Pub Year", "Publisher", "Shelf Loc",
            "copies_total", "copies_avail", "Language", "Loan Period (days)", "last_checkout"]
lib_rows, used, titles = [], set(), set()


def isbn13():
    d = [9, 7, 8] + [rng.randint(0, 9) for _ in range(9)]
    s = sum(x * (1 if i % 2 == 0 else 3) for i, x in enumerate(d))
    d.append((10 - s % 10) % 10)
    return "".join(map(str, d))


for i in range(236):
    while True:
        n = rng.randint(10000, 99999)
        if n not in used:
            used.add(n); break
    while True:
        t = f"{rng.choice(w1)} {rng.choice(w2)}"
        if t not in titles:
            titles.add(t); break
    tot = rng.choice([1, 1, 2, 2, 3, 4, 6])
    last_co = "" if rng.random() < 0.12 else (datetime.date(2023, 6, 1) + datetime.timedelta(days=rng.randint(0, 500))).isoformat()
    lib_rows.append({
        "Book ID": f"BK-{n}",
        "Title": t,
        "Author": f"{rng.choice(first)} {rng.choice(last)}",
        "ISBN-13": isbn13(),
        "Pub Year": str(rng.randint(1962, 2024)),
        "Publisher": rng.choice(pubs),
        "Shelf Loc": f"{rng.choice('ABCDEFGH')}{rng.randint(1, 12)}-{rng.randint(1, 6)}",
        "copies_total": str(tot),
        "copies_avail": str(rng.randint(0, tot)),
        "Language": rng.choice(langs),
        "Loan Period (days)": rng.choice(["14", "21", "21", "28", "7"]),
        "last_checkout": last_co,
    })
lib_rows.sort(key=lambda r: r["Book ID"])
with open(os.path.join(D, "library_catalogue.csv"), "w", newline="", encoding="utf-8") as f:
    w = csv.DictWriter(f, fieldnames=lib_cols); w.writeheader(); w.writerows(lib_rows)

# ------------------------------------------------------- tidectl_flags.md (CLI)
flags = [
    ("`--config`", "`~/.tidectl/config.toml`", "`TIDECTL_CONFIG`", "Path to the configuration file."),
    ("`--profile`", "`default`", "`TIDECTL_PROFILE`", "Named profile to load from the config file."),
    ("`--region`", "`eu-north-1`", "`TIDECTL_REGION`", "Region used for all API calls."),
    ("`--endpoint`", "(none)", "`TIDECTL_ENDPOINT`", "Override the API base URL, e.g. for staging."),
    ("`--output`", "`table`", "`TIDECTL_OUTPUT`", "Output format: `table`, `json` or `yaml`."),
    ("`--timeout`", "`30s`", "`TIDECTL_TIMEOUT`", "Per-request timeout."),
    ("`--retries`", "`3`", "`TIDECTL_RETRIES`", "How many times a failed request is retried."),
    ("`--retry-backoff`", "`2s`", "`TIDECTL_RETRY_BACKOFF`", "Initial wait between retries, doubled on each attempt."),
    ("`--concurrency`", "`8`", "`TIDECTL_CONCURRENCY`", "Maximum parallel uploads or downloads."),
    ("`--chunk-size`", "`16MiB`", "`TIDECTL_CHUNK_SIZE`", "Part size for multipart transfers."),
    ("`--dry-run`", "`false`", "(none)", "Print the planned changes without applying them."),
    ("`--force`", "`false`", "(none)", "Skip confirmation prompts."),
    ("`--verbose`", "`false`", "`TIDECTL_VERBOSE`", "Log each HTTP request and response status."),
    ("`--log-file`", "(none)", "`TIDECTL_LOG_FILE`", "Also write logs to this file."),
    ("`--log-level`", "`info`", "`TIDECTL_LOG_LEVEL`", "One of `debug`, `info`, `warn`, `error`."),
    ("`--no-color`", "`false`", "`NO_COLOR`", "Disable ANSI colours in terminal output."),
    ("`--exclude`", "(none)", "(none)", "Glob pattern to skip (repeatable)."),
    ("`--include-hidden`", "`false`", "(none)", "Also sync dot-files and dot-directories."),
    ("`--delete`", "`false`", "(none)", "Remove remote objects that no longer exist locally."),
    ("`--checksum`", "`sha256`", "`TIDECTL_CHECKSUM`", "Checksum algorithm used to detect changes."),
    ("`--bandwidth-limit`", "`0` (unlimited)", "`TIDECTL_BWLIMIT`", "Cap transfer rate, e.g. `50M` per second."),
    ("`--tls-ca-bundle`", "(system)", "`TIDECTL_CA_BUNDLE`", "PEM file with extra trusted CAs."),
    ("`--proxy`", "(none)", "`HTTPS_PROXY`", "HTTP(S) proxy URL."),
    ("`--state-dir`", "`~/.tidectl/state`", "`TIDECTL_STATE_DIR`", "Where resumable-transfer state is kept."),
    ("`--token`", "(none)", "`TIDECTL_TOKEN`", "API token that overrides the profile's stored credential."),
]
md = ["# tidectl — command-line reference", "",
      "_Internal wiki · Platform Tools team · last reviewed 2024-09-12_", "",
      "`tidectl` is the command-line client for the Tide object-sync service. It uploads, downloads and "
      "mirrors directories between workstations and Tide buckets. Every subcommand (`sync`, `get`, `put`, "
      "`ls`, `rm`) accepts the global flags listed below.", "",
      "## Global flags", "",
      "Flags given on the command line win over environment variables, which win over values in the "
      "config file. Durations accept `ms`, `s` and `m` suffixes.", "",
      "| Flag | Default | Env Var | Description |",
      "|------|---------|---------|-------------|"]
for r in flags:
    md.append("| " + " | ".join(c.replace("`", "") for c in r) + " |")
md += ["",
       "## Notes", "",
       "Combine `--dry-run` with `--delete` before running a destructive mirror for the first time. "
       "If you hit rate limits, lower `--concurrency` before raising `--retries`.", "",
       "Questions go to #platform-tools on chat; bugs to the PLAT project in the tracker.", ""]
with open(os.path.join(D, "tidectl_flags.md"), "w", encoding="utf-8") as f:
    f.write("\n".join(md))

# ------------------------------------------------------- sla_tiers.html (SLA)
sla_cols = ["Service", "Tier", "Uptime Target", "P1 Response", "Support Hours", "Service Credit"]
sla = [
    ("Managed PostgreSQL", "Gold", "99.95%", "15 min", "24/7", "10% per 0.1% below target"),
    ("Managed Redis", "Silver", "99.9%", "30 min", "24/7", "10% per 0.1% below target"),
    ("Object Storage", "Platinum", "99.99%", "15 min", "24/7", "25% per 0.1% below target"),
    ("Block Storage", "Gold", "99.95%", "15 min", "24/7", "10% per 0.1% below target"),
    ("Kubernetes Control Plane", "Gold", "99.95%", "30 min", "24/7", "10% per 0.1% below target"),
    ("Container Registry", "Silver", "99.9%", "1 h", "Mon–Fri 07:00–19:00 CET", "5% per 0.1% below target"),
    ("Load Balancer", "Platinum", "99.99%", "15 min", "24/7", "25% per 0.1% below target"),
    ("DNS Hosting", "Platinum", "100%", "15 min", "24/7", "25% per incident"),
    ("CDN Edge", "Gold", "99.95%", "30 min", "24/7", "10% per 0.1% below target"),
    ("Message Queue", "Silver", "99.9%", "1 h", "24/7", "5% per 0.1% below target"),
    ("Log Analytics", "Bronze", "99.5%", "4 h", "Mon–Fri 08:00–18:00 CET", "None"),
    ("Metrics & Alerting", "Silver", "99.9%", "1 h", "24/7", "5% per 0.1% below target"),
    ("Secrets Vault", "Gold", "99.95%", "15 min", "24/7", "10% per 0.1% below target"),
    ("Identity (SSO)", "Platinum", "99.99%", "15 min", "24/7", "25% per 0.1% below target"),
    ("Email Relay", "Bronze", "99.5%", "4 h", "Mon–Fri 08:00–18:00 CET", "None"),
    ("Backup Service", "Silver", "99.9%", "2 h", "24/7", "5% per 0.1% below target"),
    ("Serverless Functions", "Silver", "99.9%", "1 h", "24/7", "5% per 0.1% below target"),
    ("Search Cluster", "Bronze", "99.5%", "8 h", "Mon–Fri 08:00–18:00 CET", "None"),
    ("VPN Gateway", "Gold", "99.95%", "30 min", "24/7", "10% per 0.1% below target"),
    ("Data Warehouse", "Gold", "99.9%", "1 h", "Mon–Sat 06:00–22:00 CET", "10% per 0.1% below target"),
    ("Build Runners", "Bronze", "99.0%", "Next business day", "Mon–Fri 08:00–18:00 CET", "None"),
    ("Status Page", "Silver", "99.9%", "2 h", "24/7", "None"),
]
h = ["<!DOCTYPE html>", "<html lang=\"en\">", "<head><meta charset=\"utf-8\"><title>Service Level Agreements — Cloud Platform</title></head>",
     "<body>", "<h1>Service Level Agreements (2025 schedule)</h1>",
     "<p>This schedule lists the availability targets and first-response commitments for each managed "
     "service. Uptime is measured per calendar month. Service credits are applied to the next invoice on "
     "request, capped at 50% of that month's fee for the affected service.</p>",
     "<table border=\"1\">", "  <thead>", "    <tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in sla_cols) + "</tr>",
     "  </thead>", "  <tbody>"]
for r in sla:
    h.append("    <tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in r) + "</tr>")
h += ["  </tbody>", "</table>",
      "<p>P1 = complete outage or data loss. Contact the duty desk via the support portal.</p>",
      "</body>", "</html>", ""]
with open(os.path.join(D, "sla_tiers.html"), "w", encoding="utf-8") as f:
    f.write("\n".join(h))

print(f"invoices={len(inv_rows)} library={len(lib_rows)} flags={len(flags)} sla={len(sla)}")
