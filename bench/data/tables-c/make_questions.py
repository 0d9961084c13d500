#!/usr/bin/env python3
"""Write questions.jsonl from the tables in docs/ (row picks use seed 7)."""
import json, os, random, re
import tables

rng = random.Random(7)
HERE = os.path.dirname(os.path.abspath(__file__))
T = {g: tables.load(g) for g in tables.FILES}
used = {g: set() for g in T}
out = []


def pick(g, cond=lambda r: True):
    cols, rows = T[g]
    cands = [i for i, r in enumerate(rows) if i not in used[g] and cond(dict(zip(cols, r)))]
    i = rng.choice(cands); used[g].add(i)
    return rows[i], dict(zip(cols, rows[i]))


def find(g, col, val):
    cols, rows = T[g]
    for r in rows:
        if dict(zip(cols, r))[col] == val:
            return r, dict(zip(cols, r))
    raise KeyError(val)


def ans(g, row, id_col, col, q, style):
    cols, _ = T[g]
    d = dict(zip(cols, row))
    assert d[col] != ""
    out.append({"question": q, "expected": "answer", "category": "answerable",
                "gold_sources": [tables.FILES[g]], "gold_answer": d[col],
                "answer_keys": [tables.key(cols, row, id_col, col)],
                "group": g, "column": col, "style": style})


def refuse(g, cat, q):
    out.append({"question": q, "expected": "refuse", "category": cat, "group": g})


# ---------------------------------------------------------------- invoices
g, I = "invoices", "invoice_id"
nonempty = lambda c: (lambda d: d[c] != "")
for col, tpl in [("due_date", "What is the due_date of invoice {id}?"),
                 ("Amount (EUR)", "What is the Amount (EUR) for {id}?"),
                 ("Status", "What is the Status of invoice {id}?"),
                 ("PO Number", "What is the PO Number on {id}?"),
                 ("payment_method", "What payment_method is recorded for {id}?")]:
    r, d = pick(g, nonempty(col)); ans(g, r, I, col, tpl.format(id=d[I]), "direct")
for col, tpl in [("Issue Date", "when was {lid} issued"),
                 ("Customer Name", "who was invoice {id} billed to?"),
                 ("VAT Rate (%)", "what vat rate applies to {lid}?"),
                 ("qty", "how many units were on {id}'s line"),
                 ("Cost Centre", "which cost center is {id} booked against")]:
    r, d = pick(g, nonempty(col)); ans(g, r, I, col, tpl.format(id=d[I], lid=d[I].lower()), "paraphrase")
nm = [("What is the billing address on invoice {id}?", None),
      ("Who approved invoice {id}?", None),
      ("what date was {lid} actually paid on", lambda d: d["Status"] == "Paid"),
      ("what's the discount on {lid}", None),
      ("How much is still outstanding on {id}?", lambda d: d["Status"] == "Partially Paid"),
      ("Which sales rep is responsible for {id}?", None)]
for tpl, c in nm:
    r, d = pick(g, c or (lambda d: True))
    refuse(g, "near_miss", tpl.format(id=d[I], lid=d[I].lower()))
ids = {d for d in (r[0] for r in T[g][1])}
absent = [x for x in (f"INV-2024-{n:05d}" for n in (417, 1288, 1935)) if x not in ids]
assert len(absent) == 3
refuse(g, "unknown_entity", f"What is the due_date of invoice {absent[0]}?")
refuse(g, "unknown_entity", f"who's the customer on {absent[1].lower()}")
refuse(g, "unknown_entity", f"What is the Amount (EUR) of {absent[2]}?")

# ------------------------------------------------------- library catalogue
g, B = "library_catalogue", "Book ID"
for col, tpl in [("ISBN-13", "What is the ISBN-13 of {id}?"),
                 ("Shelf Loc", "What is the Shelf Loc for book {id}?"),
                 ("Pub Year", "What is the Pub Year of {id}?"),
                 ("Loan Period (days)", "What is the Loan Period (days) for {id}?"),
                 ("last_checkout", "What is the last_checkout date for {id}?")]:
    r, d = pick(g, nonempty(col)); ans(g, r, B, col, tpl.format(id=d[B]), "direct")
r, d = pick(g); ans(g, r, B, "Author", f"who wrote {d[B].lower()}", "paraphrase")
r, d = pick(g); ans(g, r, "Title", "Publisher", f"who published \"{d['Title']}\"?", "paraphrase")
r, d = pick(g, lambda d: d["copies_avail"] != "0"); ans(g, r, B, "copies_avail", f"how many copies of {d[B]} can i borrow right now", "paraphrase")
r, d = pick(g, lambda d: d["Language"] != "English"); ans(g, r, B, "Language", f"what language is book {d[B].lower()} written in?", "paraphrase")
r, d = pick(g); ans(g, r, "Title", "copies_total", f"how many copies of {d['Title'].lower()} does the library own", "paraphrase")
for tpl in ["How many pages does {id} have?",
            "what's the dewey decimal number for {lid}",
            "Who currently has {id} checked out?",
            "Which edition is book {id}?",
            "what is the replacement cost if i lose {lid}?",
            "What genre is {id} filed under?"]:
    r, d = pick(g); refuse(g, "near_miss", tpl.format(id=d[B], lid=d[B].lower()))
ids = {r[0] for r in T[g][1]}
absent = [x for x in ("BK-77812", "BK-40416", "BK-13579") if x not in ids]
assert len(absent) == 3
refuse(g, "unknown_entity", f"Who is the Author of {absent[0]}?")
refuse(g, "unknown_entity", f"where is {absent[1].lower()} shelved")
refuse(g, "unknown_entity", f"What is the Pub Year of book {absent[2]}?")

# ----------------------------------------------------------- tidectl flags
g, F = "tidectl_flags", "Flag"
for flag, col, q in [("--timeout", "Default", "What is the Default of --timeout?"),
                     ("--chunk-size", "Default", "What is the default value of the --chunk-size flag?"),
                     ("--log-level", "Env Var", "What is the Env Var for --log-level?"),
                     ("--delete", "Description", "What is the Description of the --delete flag?")]:
    r, _ = find(g, F, flag); ans(g, r, F, col, q, "direct")
for flag, col, q in [("--proxy", "Env Var", "which env variable sets the proxy for tidectl"),
                     ("--retries", "Default", "how many times does tidectl retry by default?"),
                     ("--region", "Default", "whats the default region if i dont pass --region"),
                     ("--include-hidden", "Description", "what does --include-hidden do")]:
    r, _ = find(g, F, flag); ans(g, r, F, col, q, "paraphrase")
for q in ["Which tidectl version introduced --checksum?",
          "What is the short form of --verbose?",
          "What is the maximum allowed value for --concurrency?",
          "what's the config file key name for --timeout",
          "what exit code does tidectl return when --bandwidth-limit is exceeded",
          "Who on the Platform Tools team maintains the --token flag?"]:
    refuse(g, "near_miss", q)
refuse(g, "unknown_entity", "What is the default for --parallel?")
refuse(g, "unknown_entity", "which env var controls --follow-symlinks")
refuse(g, "unknown_entity", "What is the Description of the --max-depth flag?")

# --------------------------------------------------------------- SLA tiers
g, S = "sla_tiers", "Service"
for svc, col, q in [("Object Storage", "Uptime Target", "What is the Uptime Target for Object Storage?"),
                    ("Container Registry", "P1 Response", "What is the P1 Response for Container Registry?"),
                    ("Data Warehouse", "Support Hours", "What are the Support Hours for Data Warehouse?"),
                    ("Secrets Vault", "Tier", "Which Tier is Secrets Vault in?")]:
    r, _ = find(g, S, svc); ans(g, r, S, col, q, "direct")
for svc, col, q in [("Message Queue", "P1 Response", "how fast do you respond to a p1 on the message queue"),
                    ("Managed Redis", "Uptime Target", "what availability do we get on managed redis?"),
                    ("Load Balancer", "Service Credit", "if the load balancer misses its sla how much credit do we get")]:
    r, _ = find(g, S, svc); ans(g, r, S, col, q, "paraphrase")
for q in ["What is the monthly price of Managed PostgreSQL?",
          "what's the RPO for the Backup Service",
          "Who is the escalation contact for VPN Gateway?",
          "What is the P2 response time for CDN Edge?",
          "when is the maintenance window for the Kubernetes Control Plane"]:
    refuse(g, "near_miss", q)
refuse(g, "unknown_entity", "What is the Uptime Target for Managed MySQL?")
refuse(g, "unknown_entity", "what tier is gpu compute on")
refuse(g, "unknown_entity", "What are the Support Hours for the Web Application Firewall?")

# interleave deterministically so categories are not in blocks
random.Random(11).shuffle(out)
with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(len(out), "questions")
