#!/usr/bin/env python3
"""Generate docs/ (2 CSVs + 1 Markdown) and questions.jsonl. Seeds: DATA_SEED, Q_SEED."""
import csv, json, random, os, datetime as dt

DATA_SEED = 20240611
Q_SEED = 7331
HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "docs")
os.makedirs(DOCS, exist_ok=True)
rng = random.Random(DATA_SEED)

FIRST = ["Aisha", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
         "Kavya", "Liam", "Mei", "Nadia", "Oscar", "Priya", "Quentin", "Rosa", "Samir", "Tomas",
         "Uma", "Victor", "Wen", "Yusuf", "Zoe"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Petrov", "Garcia", "Haddad", "Kim", "Tanaka", "Silva",
        "Becker", "Nair", "O'Brien", "Zhang", "Rahman", "Novak", "Iyer", "Dubois", "Costa",
        "Khan", "Horvat", "Sato", "Mendes", "Fischer", "Yilmaz", "Walsh"]

def person():
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"

# ---------------------------------------------------------------- support tickets
CUSTOMERS = ["Brightwater Logistics", "Norcastle Dental Group", "Pinecrest Credit Union",
             "Halvorsen Marine", "Quillfeather Publishing", "Redmond & Sykes LLP", "Talon Aerospace",
             "Verdant Foods Co.", "Ashgrove Schools Trust", "Kestrel Energy", "Mosaic Health Partners",
             "Orbital Print Works", "Saltmarsh Breweries", "Ironbridge Civil", "Juniper Retail Ltd"]
CATEGORIES = ["Billing", "Login / SSO", "Data Export", "Performance", "Integrations", "Mobile App",
              "Permissions", "Reporting", "Onboarding"]
AGENTS = sorted({person() for _ in range(40)})[:14]
TICKET_COLS = ["ticket_id", "Opened At", "Customer", "Priority", "Category", "Assignee", "Status",
               "Due Date", "first_response_min", "Resolution Hours", "SLA Tier", "Channel"]

ticket_ids = rng.sample(range(10000, 99999), 210)
tickets = []
base = dt.datetime(2024, 1, 2, 8, 0)
for tid in ticket_ids:
    opened = base + dt.timedelta(minutes=rng.randint(0, 160 * 24 * 60))
    pri = rng.choices(["P1", "P2", "P3", "P4"], [1, 3, 5, 3])[0]
    due = opened + dt.timedelta(days={"P1": 1, "P2": 3, "P3": 7, "P4": 14}[pri])
    status = rng.choices(["Resolved", "Closed", "Open", "In Progress", "Waiting on Customer"],
                         [5, 4, 2, 2, 1])[0]
    res = f"{rng.uniform(0.4, 190):.1f}" if status in ("Resolved", "Closed") else ""
    tickets.append({
        "ticket_id": f"TKT-{tid}",
        "Opened At": opened.strftime("%Y-%m-%d %H:%M"),
        "Customer": rng.choice(CUSTOMERS),
        "Priority": pri,
        "Category": rng.choice(CATEGORIES),
        "Assignee": rng.choice(AGENTS) if status != "Open" or rng.random() < 0.5 else "",
        "Status": status,
        "Due Date": due.strftime("%Y-%m-%d"),
        "first_response_min": str(rng.randint(2, 600)),
        "Resolution Hours": res,
        "SLA Tier": rng.choice(["Gold", "Silver", "Bronze", "Platinum"]),
        "Channel": rng.choice(["Email", "Web Form", "Phone", "Chat", "API"]),
    })
with open(os.path.join(DOCS, "support_tickets.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=TICKET_COLS)
    w.writeheader(); w.writerows(tickets)

# ---------------------------------------------------------------- vehicle fleet
VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
MODELS = [("Ford", "Transit 350", "Diesel", 80), ("Mercedes-Benz", "Sprinter 316", "Diesel", 71),
          ("Toyota", "Hilux", "Diesel", 80), ("Renault", "Master E-Tech", "Electric", 0),
          ("Volkswagen", "Crafter", "Diesel", 75), ("Nissan", "e-NV200", "Electric", 0),
          ("Toyota", "Corolla Hybrid", "Hybrid", 43), ("Isuzu", "D-Max", "Diesel", 76),
          ("Peugeot", "Partner", "Petrol", 60), ("Iveco", "Daily 35S", "Diesel", 90)]
DEPOTS = ["Leeds North", "Bristol Avonmouth", "Glasgow East", "Cardiff Bay", "Milton Keynes",
          "Norwich Hub", "Sheffield Central"]
FLEET_COLS = ["Unit No", "VIN", "Make", "Model", "Model Year", "Odometer (km)", "fuel_type",
              "Assigned Depot", "Driver", "Last Service Date", "Next Service Due (km)",
              "Tank Capacity (L)", "Plate"]
unit_nums = rng.sample(range(100, 9999), 160)
fleet = []
for u in unit_nums:
    make, model, fuel, tank = rng.choice(MODELS)
    odo = rng.randint(3000, 240000)
    fleet.append({
        "Unit No": f"FL-{u:04d}",
        "VIN": "".join(rng.choice(VIN_CHARS) for _ in range(17)),
        "Make": make, "Model": model,
        "Model Year": str(rng.randint(2015, 2024)),
        "Odometer (km)": str(odo),
        "fuel_type": fuel,
        "Assigned Depot": rng.choice(DEPOTS),
        "Driver": person() if rng.random() < 0.85 else "",
        "Last Service Date": (dt.date(2023, 6, 1) + dt.timedelta(days=rng.randint(0, 365))).isoformat(),
        "Next Service Due (km)": str((odo // 20000 + 1) * 20000),
        "Tank Capacity (L)": str(tank) if tank else "",
        "Plate": "".join(rng.choice("ABCDEFGHJKLMNPRSTVWXY") for _ in range(2))
                 + f"{rng.randint(15, 74):02d} "
                 + "".join(rng.choice("ABCDEFGHJKLMNPRSTVWXYZ") for _ in range(3)),
    })
with open(os.path.join(DOCS, "fleet_vehicles.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=FLEET_COLS)
    w.writeheader(); w.writerows(fleet)

# ---------------------------------------------------------------- markdown config reference
MD_COLS = ["Setting", "Default", "Type", "Reloadable", "Scope", "Description"]
SETTINGS = [
    ("ingest.batch_size", "500", "integer", "yes", "worker", "Number of records buffered before a flush to storage."),
    ("ingest.flush_interval", "15s", "duration", "yes", "worker", "Maximum time a partial batch waits before it is flushed."),
    ("ingest.max_record_bytes", "1048576", "integer", "no", "cluster", "Records larger than this are rejected with a 413 error."),
    ("ingest.compression", "zstd", "enum", "no", "cluster", "Codec used for batches written to the object store."),
    ("ingest.dedupe_window", "10m", "duration", "yes", "tenant", "Window in which records with the same key are dropped as duplicates."),
    ("ingest.schema_strict", "false", "boolean", "yes", "tenant", "Reject records containing fields not declared in the schema."),
    ("queue.partitions", "12", "integer", "no", "cluster", "Number of partitions created for each new topic."),
    ("queue.retention_hours", "72", "integer", "yes", "tenant", "How long acknowledged messages are kept for replay."),
    ("queue.ack_timeout", "30s", "duration", "yes", "worker", "Time before an unacknowledged message is redelivered."),
    ("queue.dead_letter_topic", "ingest.dlq", "string", "no", "tenant", "Topic receiving messages that exhausted their retries."),
    ("retry.max_attempts", "5", "integer", "yes", "worker", "Delivery attempts before a message goes to the dead-letter topic."),
    ("retry.backoff_base", "250ms", "duration", "yes", "worker", "Initial delay of the exponential backoff between attempts."),
    ("retry.backoff_cap", "2m", "duration", "yes", "worker", "Upper bound on the delay between two attempts."),
    ("storage.bucket", "ingest-prod-eu1", "string", "no", "cluster", "Object store bucket that holds flushed batches."),
    ("storage.tiering_after_days", "30", "integer", "yes", "tenant", "Age at which batches move to the cold storage class."),
    ("storage.encryption", "aes256-gcm", "enum", "no", "cluster", "Server-side encryption mode requested on upload."),
    ("auth.token_ttl", "1h", "duration", "yes", "cluster", "Lifetime of service tokens issued to producers."),
    ("auth.mtls_required", "true", "boolean", "no", "cluster", "Require client certificates on the producer endpoint."),
    ("auth.allowed_issuers", "https://id.internal", "list", "yes", "tenant", "Token issuers accepted for producer authentication."),
    ("metrics.scrape_port", "9464", "integer", "no", "worker", "Port on which the worker exposes its metrics endpoint."),
    ("metrics.histogram_buckets", "5,10,25,50,100,250", "list", "no", "worker", "Latency buckets in milliseconds for the flush histogram."),
    ("log.level", "info", "enum", "yes", "worker", "Minimum severity written to the worker log."),
    ("log.sample_rate", "0.1", "float", "yes", "worker", "Fraction of debug-level lines kept when sampling is enabled."),
    ("export.parallelism", "4", "integer", "yes", "tenant", "Concurrent export jobs allowed per tenant."),
    ("export.format", "parquet", "enum", "yes", "tenant", "File format used for scheduled exports."),
    ("export.max_rows_per_file", "2000000", "integer", "yes", "tenant", "Row limit after which an export rolls over to a new file."),
]
md_rows = [dict(zip(MD_COLS, s)) for s in SETTINGS]
md = ["# Ingest Service Configuration Reference", "",
      "This page lists the settings read by the ingest service at start-up. Settings are loaded from "
      "`ingest.yaml` in the service's config directory; cluster-scoped values are managed by the platform "
      "team, while tenant-scoped values can be changed by each tenant's administrators through the admin console.",
      "",
      "A setting marked as reloadable takes effect on the next config refresh, which happens every minute. "
      "Anything else needs a rolling restart of the workers. Durations accept the suffixes ms, s, m and h.",
      "", "## Settings", "",
      "| " + " | ".join(MD_COLS) + " |",
      "|" + "|".join("---" for _ in MD_COLS) + "|"]
md += ["| " + " | ".join(r[c] for c in MD_COLS) + " |" for r in md_rows]
md += ["", "## Changing a setting", "",
       "Open a change request in the platform repository with the new value and the reason for the change. "
       "Changes to cluster-scoped settings are reviewed by the on-call platform engineer and rolled out during "
       "the weekly maintenance window unless they fix an active incident.", "",
       "If a worker fails to start after a change, check the worker log for a line beginning with "
       "`config error` — it names the offending key and the value that could not be parsed.", ""]
with open(os.path.join(DOCS, "ingest_config_reference.md"), "w") as f:
    f.write("\n".join(md))

# ---------------------------------------------------------------- questions
q = random.Random(Q_SEED)

def row_pairs(row, cols):
    return [(c, row[c]) for c in cols if row[c] != ""]

def make_key(row, cols, id_col, ask_col):
    pairs = row_pairs(row, cols)
    names = [c for c, _ in pairs]
    i, j = names.index(id_col), names.index(ask_col)
    lo, hi = min(i, j), max(i, j)
    seg = pairs[lo:hi + 1]
    return "; ".join([seg[0][1]] + [f"{c}: {v}" for c, v in seg[1:]])

FILES = {
    "support_tickets": ("support_tickets.csv", tickets, TICKET_COLS, "ticket_id"),
    "fleet_vehicles": ("fleet_vehicles.csv", fleet, FLEET_COLS, "Unit No"),
    "ingest_config_reference": ("ingest_config_reference.md", md_rows, MD_COLS, "Setting"),
}
TEMPLATES = {
    "support_tickets": [
        ("Assignee", "direct", "What is the Assignee of {id}?"),
        ("Priority", "direct", "What is the Priority of ticket {id}?"),
        ("Category", "direct", "What Category is {id} filed under?"),
        ("first_response_min", "direct", "What is the first_response_min for {id}?"),
        ("Opened At", "direct", "What is the Opened At timestamp of {id}?"),
        ("Due Date", "paraphrase", "when is {lid} due"),
        ("Assignee", "paraphrase", "who's handling {id}"),
        ("Resolution Hours", "paraphrase", "how long did it take to fix {id}?"),
        ("Customer", "paraphrase", "which client raised {lid}"),
        ("Channel", "paraphrase", "how did the customer get in touch for {id} - phone, email?"),
    ],
    "fleet_vehicles": [
        ("Plate", "direct", "What is the Plate of {id}?"),
        ("Odometer (km)", "direct", "What is the Odometer (km) reading for {id}?"),
        ("Assigned Depot", "direct", "What is the Assigned Depot of unit {id}?"),
        ("Model Year", "direct", "What Model Year is {id}?"),
        ("Make", "direct", "What Make is vehicle {id}?"),
        ("Driver", "paraphrase", "who drives {lid}"),
        ("Last Service Date", "paraphrase", "when was {id} last in the shop for maintenance"),
        ("Tank Capacity (L)", "paraphrase", "how many litres does the tank on {id} hold"),
        ("fuel_type", "paraphrase", "what does {lid} run on, diesel or petrol?"),
        ("VIN", "paraphrase", "need the chassis number for {id}"),
    ],
    "ingest_config_reference": [
        ("Default", "direct", "What is the Default of {id}?"),
        ("Type", "direct", "What Type is the setting {id}?"),
        ("Scope", "direct", "What is the Scope of {id}?"),
        ("Reloadable", "direct", "Is {id} Reloadable?"),
        ("Description", "direct", "What is the Description of {id}?"),
        ("Default", "paraphrase", "what's {id} set to out of the box"),
        ("Reloadable", "paraphrase", "can i change {id} without restarting the workers"),
        ("Description", "paraphrase", "what does {id} actually do"),
        ("Type", "paraphrase", "what kind of value does {id} take"),
        ("Scope", "paraphrase", "does {id} apply per worker, per tenant or cluster-wide?"),
    ],
}
NEAR = {
    "support_tickets": [
        "What is the customer satisfaction score for {id}?",
        "what's the refund amount on {id}",
        "Which product version was {id} reported against?",
        "how many times has {id} been reopened",
        "whats the customer's email address for {id}",
        "Who is the escalation manager for {id}?",
        "what time zone is the requester of {id} in",
    ],
    "fleet_vehicles": [
        "What colour is {id}?",
        "when does the insurance on {id} expire",
        "What was the purchase price of {id}?",
        "how many seats does {id} have",
        "what's the engine size of {id}",
        "what's the towing capacity of {id}",
        "what fuel economy does {id} get, l/100km?",
    ],
    "ingest_config_reference": [
        "What environment variable overrides {id}?",
        "which release introduced {id}",
        "What values are allowed for {id}?",
        "which team owns {id}?",
        "when was {id} last changed in prod",
        "what's the recommended value of {id} for high-throughput tenants",
    ],
}
UNKNOWN = {
    "support_tickets": ["Who is the Assignee of {id}?", "when is {id} due", "what priority is {id}",
                        "What is the Status of {id}?"],
    "fleet_vehicles": ["who drives {id}", "What is the Odometer (km) of {id}?", "which depot is {id} based at"],
    "ingest_config_reference": ["What is the Default of {id}?", "what type is {id}",
                                "can {id} be reloaded without a restart"],
}

out = []
for g, (fname, rows, cols, idc) in FILES.items():
    pool = list(range(len(rows)))
    q.shuffle(pool)
    used = set()
    for col, style, tmpl in TEMPLATES[g]:
        ri = next(i for i in pool if i not in used and rows[i][col] != "")
        used.add(ri)
        r = rows[ri]
        out.append({"question": tmpl.format(id=r[idc], lid=r[idc].lower()), "expected": "answer",
                    "category": "answerable", "gold_sources": [fname], "gold_answer": r[col],
                    "answer_keys": [make_key(r, cols, idc, col)], "group": g, "column": col,
                    "style": style})
    for tmpl in NEAR[g]:
        ri = next(i for i in pool if i not in used)
        used.add(ri)
        out.append({"question": tmpl.format(id=rows[ri][idc]), "expected": "refuse",
                    "category": "near_miss", "group": g})
    existing = {r[idc] for r in rows}
    for tmpl in UNKNOWN[g]:
        if g == "ingest_config_reference":
            cands = ["ingest.retry_jitter", "queue.max_consumers", "storage.gc_interval",
                     "export.compression_level", "auth.session_ttl"]
            uid = next(c for c in cands if c not in existing and c not in [o.get("_u") for o in out])
        else:
            # near a real id: same prefix, one digit changed
            while True:
                src = q.choice(rows)[idc]
                pre, num = src.split("-")
                k = q.randrange(len(num))
                num2 = num[:k] + str((int(num[k]) + q.randint(1, 9)) % 10) + num[k + 1:]
                uid = f"{pre}-{num2}"
                taken = {o.get("_u") for o in out}
                if uid not in existing and uid not in taken and num2[0] != "0":
                    break
        out.append({"question": tmpl.format(id=uid), "expected": "refuse",
                    "category": "unknown_entity", "group": g, "_u": uid})

order = {"answerable": 0, "near_miss": 1, "unknown_entity": 2}
out.sort(key=lambda o: order[o["category"]])
with open(os.path.join(HERE, "questions.jsonl"), "w") as f:
    for o in out:
        o.pop("_u", None)
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print("tickets", len(tickets), "fleet", len(fleet), "md rows", len(md_rows), "questions", len(out))
