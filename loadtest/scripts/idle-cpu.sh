#!/usr/bin/env bash
# The CPU of a running local cluster's processes (npm start), Kafka aside, over an interval:
#   bash loadtest/scripts/idle-cpu.sh [seconds=30] [kafka broker=127.0.0.1:9092]
# Services (router, ingest, shard nodes) are found by the broker in their LADDER_KAFKA_BROKERS, the
# redis-servers by the ports in the services' LADDER_SHARDS. Prints cores per process and the total,
# from /proc/<pid>/stat (user + system ticks).
set -euo pipefail
secs=${1:-30}
broker=${2:-127.0.0.1:9092}
hz=$(getconf CLK_TCK)
declare -A name before
for p in $(pgrep -f '(router|ingest|shard-node)/dist/main.js' || true); do
  env=$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null) || continue
  grep -qx "LADDER_KAFKA_BROKERS=$broker" <<<"$env" || continue
  id=$(grep -oP '^LADDER_SHARD_ID=\K.*' <<<"$env" || true)
  name[$p]=$(tr '\0' ' ' < /proc/$p/cmdline | grep -oP '(router|ingest|shard-node)(?=/dist/main.js)')${id:+ $id}
  for port in $(grep -oP '^LADDER_SHARDS=\K.*' <<<"$env" | grep -oP ':\K[0-9]+' || true); do
    for r in $(pgrep -f "redis-server 127.0.0.1:$port\$" || true); do name[$r]="redis-server :$port"; done
  done
done
[ ${#name[@]} -gt 0 ] || { echo "no services of a cluster on $broker found" >&2; exit 1; }
ticks() { awk '{print $14 + $15}' /proc/$1/stat 2>/dev/null || echo ""; }
for p in "${!name[@]}"; do before[$p]=$(ticks $p); done
sleep "$secs"
total=0
lines=""
for p in "${!name[@]}"; do
  now=$(ticks $p); [ -n "$now" ] || continue
  cores=$(echo "($now - ${before[$p]}) / $hz / $secs" | bc -l)
  total=$(echo "$total + $cores" | bc -l)
  lines+=$(printf '%6.3f cores  %s (pid %s)' "$cores" "${name[$p]}" "$p")$'\n'
done
printf '%s' "$lines" | sort -k3
printf '%6.3f cores  total over %s s (Kafka aside)\n' "$total" "$secs"
