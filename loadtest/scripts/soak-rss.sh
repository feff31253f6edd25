#!/usr/bin/env bash
# Samples the resident memory (MiB) of every process of `npm start`'s cluster once a minute, as CSV on
# stdout: time, router, ingest, shard-0..2, kafka, redis-7001..7003. Used by the soak (loadtest/README.md,
# "Soak"): `bash loadtest/scripts/soak-rss.sh 31 > results/<name>-rss.csv` samples for 31 minutes.
set -euo pipefail
minutes=${1:-31}
rss() { # pid -> MiB, or empty when gone
  [[ -n "${1:-}" && -r /proc/$1/status ]] && awk '/^VmRSS:/ { printf "%d", $2 / 1024 }' "/proc/$1/status" || true
}
pid_of() { pgrep -f -o -- "$1" || true; }
shard_pid() { # the shard node serving shard id $1
  for p in $(pgrep -f -- "shard-node/dist/main.js" || true); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "LADDER_SHARD_ID=$1" && { echo "$p"; return; }
  done
}
echo "time,router,ingest,shard-0,shard-1,shard-2,kafka,redis-7001,redis-7002,redis-7003"
for ((i = 0; i < minutes; i++)); do
  row="$(date +%s)"
  for p in "$(pid_of router/dist/main.js)" "$(pid_of ingest/dist/main.js)" "$(shard_pid shard-0)" "$(shard_pid shard-1)" "$(shard_pid shard-2)" \
           "$(pid_of kafka.Kafka)" "$(pid_of 'redis-server .*:7001')" "$(pid_of 'redis-server .*:7002')" "$(pid_of 'redis-server .*:7003')"; do
    row+=",$(rss "$p")"
  done
  echo "$row"
  sleep 60
done
