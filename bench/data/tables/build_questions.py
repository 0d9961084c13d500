"""Build questions.jsonl from the CSVs using hand-written templates (fixed seed)."""
import csv, json, random
R = random.Random(7)
def load(f): return list(csv.DictReader(open(f"docs/{f}", newline="")))
T = {f: load(f) for f in ["employees.csv", "products.csv", "servers.csv", "shipments.csv"]}
used = set()
def pick(f, key, col):
    rows = [r for r in T[f] if r[col] and (f, r[key]) not in used]
    r = R.choice(rows); used.add((f, r[key])); return r
# (file, key column, answer column, template, style)
ANS = [
 ("employees.csv","Employee ID","Department","What is the department of {k}?","direct"),
 ("employees.csv","Employee ID","Office City","What is the Office City for employee {k}?","direct"),
 ("employees.csv","Employee ID","phone_ext","phone ext for {k}?","direct"),
 ("employees.csv","Full Name","Email","What's {k}'s email?","direct"),
 ("employees.csv","Employee ID","start_date","What is the start date of {k}?","direct"),
 ("employees.csv","Employee ID","Office City","Where does {k} work?","paraphrase"),
 ("employees.csv","Employee ID","Manager","Who does {k} report to?","paraphrase"),
 ("employees.csv","Full Name","start_date","When did {k} join the company?","paraphrase"),
 ("employees.csv","Full Name","phone_ext","how do i reach {k} by phone, what's the extension","paraphrase"),
 ("employees.csv","Employee ID","Department","Which team is {k} in?","paraphrase"),
 ("products.csv","SKU","price_usd","What is the price of {k}?","direct"),
 ("products.csv","SKU","Supplier","Who is the supplier for {k}?","direct"),
 ("products.csv","product_name","weight_kg","What is the weight in kg of the {k}?","direct"),
 ("products.csv","SKU","category","category of {k}","direct"),
 ("products.csv","SKU","stock_qty","What is the stock quantity for {k}?","direct"),
 ("products.csv","SKU","price_usd","How much does {k} cost?","paraphrase"),
 ("products.csv","product_name","stock_qty","How many {k} units do we have on hand?","paraphrase"),
 ("products.csv","SKU","weight_kg","how heavy is {k}","paraphrase"),
 ("products.csv","product_name","Supplier","Who do we buy the {k} from?","paraphrase"),
 ("products.csv","SKU","product_name","What is {k} called?","paraphrase"),
 ("servers.csv","hostname","OS","What OS is {k} running?","direct"),
 ("servers.csv","hostname","IP Address","What is the IP address of {k}?","direct"),
 ("servers.csv","hostname","rack","rack for {k}?","direct"),
 ("servers.csv","hostname","owner_team","Which owner team is listed for {k}?","direct"),
 ("servers.csv","hostname","decommission_date","What is the decommission date for {k}?","direct"),
 ("servers.csv","hostname","RAM GB","How much memory does {k} have?","paraphrase"),
 ("servers.csv","hostname","owner_team","who owns {k}","paraphrase"),
 ("servers.csv","hostname","decommission_date","When is {k} going to be retired?","paraphrase"),
 ("servers.csv","hostname","rack","Where is {k} physically located in the datacenter?","paraphrase"),
 ("servers.csv","hostname","IP Address","what address does {k} resolve to","paraphrase"),
 ("shipments.csv","Shipment ID","Status","What is the status of {k}?","direct"),
 ("shipments.csv","Shipment ID","Origin Port","What was the origin port for {k}?","direct"),
 ("shipments.csv","Shipment ID","pieces","How many pieces are in shipment {k}?","direct"),
 ("shipments.csv","Shipment ID","Customer","Which customer is {k} for?","direct"),
 ("shipments.csv","Shipment ID","ship_date","ship date of {k}?","direct"),
 ("shipments.csv","Shipment ID","Destination Port","Where is {k} headed?","paraphrase"),
 ("shipments.csv","Shipment ID","delivered_date","When did {k} arrive?","paraphrase"),
 ("shipments.csv","Shipment ID","Gross Weight (kg)","How heavy was {k}?","paraphrase"),
 ("shipments.csv","Shipment ID","Status","has {k} been delivered yet or where is it at","paraphrase"),
 ("shipments.csv","Shipment ID","ship_date","When did {k} leave port?","paraphrase"),
]
# (file, key column, template) -- property not in the table
ABSCOL = [
 ("employees.csv","Employee ID","What is {k}'s salary?"),
 ("employees.csv","Employee ID","What is the job title of {k}?"),
 ("employees.csv","Full Name","What is {k}'s home address?"),
 ("employees.csv","Employee ID","How many vacation days does {k} have left?"),
 ("employees.csv","Full Name","What's the date of birth of {k}?"),
 ("employees.csv","Employee ID","what desk or floor is {k} on"),
 ("products.csv","SKU","What is the discount on {k}?"),
 ("products.csv","SKU","What colour is {k}?"),
 ("products.csv","SKU","What is the warranty period for {k}?"),
 ("products.csv","product_name","What are the dimensions of the {k}?"),
 ("products.csv","SKU","What is the barcode / EAN for {k}?"),
 ("products.csv","SKU","what's the customer rating of {k}"),
 ("servers.csv","hostname","How many CPU cores does {k} have?"),
 ("servers.csv","hostname","What is the disk size on {k}?"),
 ("servers.csv","hostname","Which datacenter region is {k} in?"),
 ("servers.csv","hostname","What's the serial number of {k}?"),
 ("servers.csv","hostname","when was {k} last patched"),
 ("servers.csv","hostname","What is the uptime of {k}?"),
 ("shipments.csv","Shipment ID","Which carrier shipped {k}?"),
 ("shipments.csv","Shipment ID","What was the freight cost for {k}?"),
 ("shipments.csv","Shipment ID","What is the tracking number for {k}?"),
 ("shipments.csv","Shipment ID","What vessel is {k} on?"),
 ("shipments.csv","Shipment ID","Who signed for {k}?"),
 ("shipments.csv","Shipment ID","What's the container number for {k}?"),
 ("shipments.csv","Shipment ID","what is the insured value of {k}"),
]
# (file, key column, absent key, template)
ABSROW = [
 ("employees.csv","Employee ID","E-13517","What is the department of {k}?"),
 ("employees.csv","Employee ID","E-10002","Where does {k} work?"),
 ("employees.csv","Full Name","Hannah Whitfield","What is {k}'s phone extension?"),
 ("employees.csv","Employee ID","E-12000","Who is the manager of {k}?"),
 ("products.csv","SKU","SKU-00042","What is the price of {k}?"),
 ("products.csv","SKU","SKU-01417","How many units of {k} are in stock?"),
 ("products.csv","product_name","Alpine Toaster M","Who supplies the {k}?"),
 ("products.csv","SKU","SKU-00050","What category is {k}?"),
 ("servers.csv","hostname","web-99.prod","How much RAM does {k} have?"),
 ("servers.csv","hostname","db-07.qa","What OS is {k} running?"),
 ("servers.csv","hostname","search-03.prod","Which team owns {k}?"),
 ("shipments.csv","Shipment ID","SHP-2024-10450","What is the status of {k}?"),
 ("shipments.csv","Shipment ID","SHP-2023-00417","Where is {k} going?"),
 ("shipments.csv","Shipment ID","SHP-2024-00000","When was {k} shipped?"),
 ("shipments.csv","Shipment ID","SHP-2024-99999","Which customer is {k} for?"),
]
out = []
for f, key, col, t, style in ANS:
    r = pick(f, key, col)
    out.append(dict(question=t.format(k=r[key]), file=f, kind="answerable", answer=r[col],
                    row_id=r[key], key_column=key, column=col, style=style))
for f, key, t in ABSCOL:
    r = pick(f, key, key)
    out.append(dict(question=t.format(k=r[key]), file=f, kind="absent_column", answer=None, row_id=r[key], key_column=key))
for f, key, k, t in ABSROW:
    out.append(dict(question=t.format(k=k), file=f, kind="absent_row", answer=None, row_id=k, key_column=key))
with open("questions.jsonl", "w") as fh:
    for q in out: fh.write(json.dumps(q) + "\n")
