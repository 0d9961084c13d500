"""Generate 4 CSV tables in docs/ (fixed seed)."""
import csv, random, datetime as dt, os
R = random.Random(20240611)
os.makedirs("docs", exist_ok=True)
FIRST = "Aisha Ben Carla Dmitri Elena Farid Grace Hiro Ines Jonas Keiko Liam Maya Nikhil Olga Pedro Quinn Rosa Sven Tariq Uma Victor Wen Ximena Yusuf Zoe Amara Bruno Chloe Diego".split()
LAST = "Okafor Lindqvist Moreau Petrov Rossi Haddad Chen Tanaka Alvarez Becker Sato Murphy Patel Kowalski Silva Novak Garcia Nguyen Fischer Khan Dubois Ivanova Costa Brennan Yilmaz Larsen Mensah Ortega Walsh Schmidt".split()
def date(a, b):
    d0 = dt.date(*a); return (d0 + dt.timedelta(days=R.randint(0, (dt.date(*b) - d0).days))).isoformat()
def write(name, header, rows):
    with open(f"docs/{name}", "w", newline="") as f:
        w = csv.writer(f); w.writerow(header); w.writerows(rows)

# 1. employees
ids = R.sample(range(10000, 13000), 240); names = set(); emp = []
while len(names) < 240: names.add(f"{R.choice(FIRST)} {R.choice(LAST)}")
names = sorted(names); R.shuffle(names)
for i, (n, x) in enumerate(zip(names, ids)):
    mgr = names[R.randrange(0, 20)] if i >= 20 else ""
    emp.append([f"E-{x}", n, R.choice(["Finance","Engineering","Sales","Marketing","Legal","HR","Support","Operations"]),
                R.choice(["Berlin","Austin","Toronto","Singapore","Dublin","Lisbon","Sydney","Chicago"]),
                str(R.randint(2000, 4999)), date((2012,1,1),(2024,6,1)), mgr,
                n.lower().replace(" ", ".") + "@northwind-corp.com"])
write("employees.csv", ["Employee ID","Full Name","Department","Office City","phone_ext","start_date","Manager","Email"], emp)

# 2. products
CAT = {"Kitchen":["Chef Knife","Cutting Board","Kettle","Saucepan","Colander"],"Office":["Desk Lamp","Stapler","Notebook","Monitor Arm","Pen Set"],
       "Garden":["Hose Reel","Pruning Shears","Planter","Rake","Watering Can"],"Outdoor":["Camp Stove","Tent","Headlamp","Cooler","Trekking Poles"]}
ADJ = "Alpine Nordic Urban Classic Compact Pro Eco Summit Harbor Vertex Aurora Falcon Cedar Atlas".split()
skus = R.sample(range(100, 1000), 300); used = set(); prod = []
for s in skus:
    while True:
        c = R.choice(list(CAT)); pn = f"{R.choice(ADJ)} {R.choice(CAT[c])} {R.choice(['S','M','L','X','II','III','Mini','Max'])}"
        if pn not in used: used.add(pn); break
    prod.append([f"SKU-{s:05d}", pn, c, f"{R.uniform(4, 350):.2f}", str(R.randint(0, 900)),
                 R.choice(["Hollis & Grant","Kestrel Supply Co","Meridian Wholesale","Tobin Industrial","Greenway Imports"]), f"{R.uniform(0.1, 18):.2f}"])
write("products.csv", ["SKU","product_name","category","price_usd","stock_qty","Supplier","weight_kg"], prod)

# 3. servers
hosts = set()
while len(hosts) < 200:
    hosts.add(f"{R.choice(['web','db','cache','api','batch','mq'])}-{R.randint(1,60):02d}.{R.choice(['prod','staging','dev'])}")
srv = []
for h in sorted(hosts):
    srv.append([h, f"10.{R.randint(0,30)}.{R.randint(0,255)}.{R.randint(2,254)}",
                R.choice(["Ubuntu 22.04","Ubuntu 20.04","RHEL 8.9","RHEL 9.3","Debian 12","Windows Server 2019"]),
                str(R.choice([8,16,32,64,128,256])), f"R{R.randint(1,24):02d}-U{R.randint(1,42):02d}",
                R.choice(["platform","payments","search","data-eng","identity","checkout"]),
                date((2025,1,1),(2028,12,31)) if R.random() < .8 else ""])
R.shuffle(srv)
write("servers.csv", ["hostname","IP Address","OS","RAM GB","rack","owner_team","decommission_date"], srv)

# 4. shipments
CITIES = ["Rotterdam","Hamburg","Shanghai","Los Angeles","Singapore","Antwerp","Busan","Felixstowe","Valencia","Santos"]
ship = []
for n in R.sample(range(1, 10000), 350):
    o, d = R.sample(CITIES, 2); sd = dt.date.fromisoformat(date((2024,1,1),(2024,11,30)))
    st = R.choice(["Delivered","Delivered","In Transit","Customs Hold","Delayed"])
    ship.append([f"SHP-2024-{n:05d}", R.choice(["Acme Retail","Borealis Foods","Crestline Auto","Dunmore Textiles","Evergreen Pharma","Fjord Outfitters"]),
                 o, d, sd.isoformat(), (sd + dt.timedelta(days=R.randint(5, 40))).isoformat() if st == "Delivered" else "",
                 str(R.randint(1, 60)), f"{R.uniform(50, 24000):.1f}", st])
write("shipments.csv", ["Shipment ID","Customer","Origin Port","Destination Port","ship_date","delivered_date","pieces","Gross Weight (kg)","Status"], ship)
