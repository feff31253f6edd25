# every 30 s: each local-cluster process's CPU (s) and RSS (MB) from /proc, each shard Redis's used memory and huge pages
import json, subprocess, time, re
procs = {}
for line in subprocess.run(["npm", "run", "-s", "cluster", "--", "status"], capture_output=True, text=True, cwd="/work/main").stdout.splitlines():
    m = re.match(r"\s+(\S+)\s+up\s+pid (\d+)", line)
    if m: procs[m.group(1)] = int(m.group(2))
cred = json.load(open("/work/main/.ladder/credentials.json"))
pw = cred["redis"]["ladder-router-admin"]
pw = pw if isinstance(pw, str) else pw.get("password")
out = open("/root/exp/run100/samples.jsonl", "a")
while True:
    row = {"t": time.time()}
    for name, pid in procs.items():
        try:
            f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            rss = int(open(f"/proc/{pid}/statm").read().split()[1]) * 4096
            row[name] = {"cpu": (int(f[11]) + int(f[12])) / 100, "rssMb": round(rss / 2**20)}
            if name.startswith("redis"):
                huge = re.search(r"AnonHugePages:\s+(\d+)", open(f"/proc/{pid}/smaps_rollup").read())
                row[name]["hugeMb"] = round(int(huge.group(1)) / 1024)
        except Exception as e:
            row[name] = None
    for i in range(4):
        try:
            info = subprocess.run(["redis-cli", "-p", str(7001 + i), "--user", "ladder-router-admin", "--pass", pw, "--no-auth-warning", "INFO", "memory"], capture_output=True, text=True, timeout=10).stdout
            row[f"mem{i}"] = int(re.search(r"used_memory:(\d+)", info).group(1))
        except Exception as e:
            row[f"mem{i}"] = str(e)[:80]
    out.write(json.dumps(row) + "\n"); out.flush()
    time.sleep(30)
