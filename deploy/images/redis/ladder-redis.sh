#!/bin/bash
# Entry point of the Redis image: `ladder-redis server [redis-server args...]` or `ladder-redis sentinel`.
#
# server — a shard's redis-server on REDIS_BIND:REDIS_PORT (127.0.0.1:6379), no snapshots, no eviction,
# an append-only file only with REDIS_PERSIST=1 (the flags of deploy/local/src/redis-server.ts). It starts
# as a replica of REDIS_REPLICA_OF (host:port) when given. With REDIS_SENTINELS (host:port,...) and
# REDIS_MASTER_NAME it asks the Sentinels first: a node they name another primary for starts as that
# primary's replica, whatever REDIS_REPLICA_OF says. A restarted container (its /data holds the marker of
# an earlier start) that the Sentinels still name primary came back before they noticed its death: it
# waits, down, up to REDIS_REJOIN_WAIT_S (15 s) for the failover its absence causes, so that it rejoins as
# a replica instead of serving as an empty primary (with no replica to promote, it starts as the primary).
# REDIS_ANNOUNCE_HOST (default REDIS_BIND) is the name others reach it by (in Kubernetes its pod's DNS
# name; it then listens on REDIS_BIND=0.0.0.0 and announces the name to its primary).
#
# sentinel — a Redis Sentinel on SENTINEL_BIND:SENTINEL_PORT (127.0.0.1:26379) watching SENTINEL_MONITOR
# (name=host:port,...) with SENTINEL_QUORUM (2), SENTINEL_DOWN_AFTER_MS (2000) and
# SENTINEL_FAILOVER_TIMEOUT_MS (10000); with SENTINEL_ANNOUNCE_HOST it announces that name and resolves
# the monitored primaries' host names (Kubernetes). Its config file is written at the first start only: Sentinel
# rewrites it as it learns replicas, peers and failovers, and a restart must keep what it learned.
set -euo pipefail

mode="${1:-server}"
shift || true
marker=/data/.ladder-started

sentinel_names() { # prints host:port of the primary the first answering Sentinel names, or nothing
  local s host port answer
  IFS=, read -ra list <<<"${REDIS_SENTINELS:-}"
  for s in "${list[@]}"; do
    host="${s%:*}"; port="${s##*:}"
    answer="$(redis-cli -h "$host" -p "$port" --raw SENTINEL get-master-addr-by-name "$REDIS_MASTER_NAME" 2>/dev/null | paste -sd: || true)"
    if [[ "$answer" =~ ^[^:]+:[0-9]+$ ]]; then echo "$answer"; return 0; fi
  done
}

server() {
  local bind="${REDIS_BIND:-127.0.0.1}" port="${REDIS_PORT:-6379}"
  local self="${REDIS_ANNOUNCE_HOST:-$bind}:$port" primary="${REDIS_REPLICA_OF:-}"
  if [ -n "${REDIS_SENTINELS:-}" ] && [ -n "${REDIS_MASTER_NAME:-}" ]; then
    local deadline=$((SECONDS + ${REDIS_REJOIN_WAIT_S:-15})) named
    while :; do
      named="$(sentinel_names)"
      if [ -n "$named" ] && [ "$named" != "$self" ]; then primary="$named"; break; fi
      if [ "$named" != "$self" ] || [ ! -f "$marker" ]; then break; fi # no answer, or a first start
      if ((SECONDS >= deadline)); then primary=""; break; fi
      sleep 0.5
    done
  fi
  touch "$marker"
  local args=(--port "$port" --bind "$bind" --dir /data --daemonize no --save "" --maxmemory-policy noeviction
    --repl-diskless-sync-delay 0 --protected-mode no)
  if [ "${REDIS_PERSIST:-0}" = 1 ]; then
    args+=(--appendonly yes --appendfsync everysec --auto-aof-rewrite-percentage 400 --auto-aof-rewrite-min-size 1gb)
  else
    args+=(--appendonly no)
  fi
  if [ -n "${REDIS_ANNOUNCE_HOST:-}" ]; then args+=(--replica-announce-ip "$REDIS_ANNOUNCE_HOST"); fi
  if [ -n "$primary" ]; then args+=(--replicaof "${primary%:*}" "${primary##*:}"); fi
  echo "ladder-redis: $self starting as ${primary:+replica of }${primary:-primary}"
  exec redis-server "${args[@]}" "$@"
}

sentinel() {
  local bind="${SENTINEL_BIND:-127.0.0.1}" port="${SENTINEL_PORT:-26379}"
  local conf="/data/sentinel-$port.conf"
  if [ ! -f "$conf" ]; then
    local tmp="$conf.tmp" entry name address
    {
      echo "port $port"; echo "bind $bind"; echo "daemonize no"; echo "dir /data"
      if [ -n "${SENTINEL_ANNOUNCE_HOST:-}" ]; then
        echo "sentinel resolve-hostnames yes"; echo "sentinel announce-hostnames yes"
        echo "sentinel announce-ip $SENTINEL_ANNOUNCE_HOST"
      fi
      IFS=, read -ra monitors <<<"${SENTINEL_MONITOR:?SENTINEL_MONITOR is required: name=host:port,...}"
      for entry in "${monitors[@]}"; do
        name="${entry%%=*}"; address="${entry#*=}"
        echo "sentinel monitor $name ${address%:*} ${address##*:} ${SENTINEL_QUORUM:-2}"
        echo "sentinel down-after-milliseconds $name ${SENTINEL_DOWN_AFTER_MS:-2000}"
        echo "sentinel failover-timeout $name ${SENTINEL_FAILOVER_TIMEOUT_MS:-10000}"
        echo "sentinel parallel-syncs $name 1"
      done
    } >"$tmp"
    mv "$tmp" "$conf"
  fi
  exec redis-server "$conf" --sentinel "$@"
}

case "$mode" in
  server) server "$@" ;;
  sentinel) sentinel "$@" ;;
  *) echo "usage: ladder-redis server|sentinel [args...]" >&2; exit 2 ;;
esac
