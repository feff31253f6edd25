import json, sys, glob, re, datetime as dt
tag = sys.argv[1]; d = f"/root/exp/{tag}"
w = json.load(open(glob.glob(f"{d}/writes*.json")[0]))
start = dt.datetime.fromisoformat(w["startedAt"].replace("Z", "+00:00")).timestamp()
day = dt.datetime.fromtimestamp(start, dt.timezone.utc).strftime("%Y-%m-%d")
def at(hms): return dt.datetime.fromisoformat(f"{day}T{hms}+00:00").timestamp()
tl = {l.split(" ", 1)[1].strip(): at(l.split()[0]) for l in open(f"{d}/timeline") if re.match(r"\d\d:", l)}
resh = open(f"{d}/reshard.log").read().splitlines()
cut = next(at(l.split()[0]) for l in resh if "cut over:" in l)
first_del = next((at(l.split()[0]) for l in resh if "deleting the players" in l), cut)
done = []
for f in glob.glob(f"{d}/ladder-logs/shard-*.log"):
    for l in open(f):
        if '"move done' in l:
            j = json.loads(l); done.append((j["time"] / 1000, j.get("deleted"), j.get("restedMs"), f.split("/")[-1]))
drain_end = max(t for t, *_ in done) if done else None
wins = {"before the move": (tl["writes start"] + 5, tl["reshard --add"]), "build (call to cut-over)": (tl["reshard --add"], cut),
        "drain (cut-over to last shard done)": (cut, drain_end), "after": (drain_end, start + w["elapsedMs"] / 1000 + w["warmupSec"])}
print(tag, "cut-over", dt.datetime.fromtimestamp(cut, dt.timezone.utc).strftime("%H:%M:%S"), "drain ends",
      dt.datetime.fromtimestamp(drain_end, dt.timezone.utc).strftime("%H:%M:%S"), f"drain {drain_end - cut:.0f} s")
for t, n, r, f in sorted(done): print("  ", f, dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%H:%M:%S"), "deleted", n, "restedMs", r)
for name, (a, b) in wins.items():
    calls = errs = 0
    for s in w["series"]:
        t = start + s["t"]
        if a <= t < b:
            o = s["ops"].get("write", {}); calls += o.get("count", 0); errs += o.get("errors", 0)
    print(f"  {name:38s} {b - a:6.0f} s  write calls {calls:6d}  refused {errs:6d}  {100 * errs / max(1, calls):5.1f}%")
print("  audit", {k: w["audit"][k] for k in ("players", "updates", "lost", "doubled")}, "lag p99", w["lag"]["latencyMs"].get("p99"))
