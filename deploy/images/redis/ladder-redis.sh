#!/bin/bash
# Entry point of the Redis image: `ladder-redis server [redis-server args...]`, `ladder-redis sentinel`,
# `ladder-redis ping` (the health check of either) or `ladder-redis acl` (prints the ACL file a server
# would run with: hashes, no password).
#
# Users. Every server and Sentinel runs with the cluster's Redis ACL users and the `default` user off, so
# a connection without credentials is refused every command (NOAUTH). The rules are not written here:
# they are the templates build.sh generates from platform/src/redis-acl.ts (users.acl.template,
# sentinel-users.template in LADDER_REDIS_TEMPLATES, /usr/local/share/ladder-redis), filled in at every
# start with the key prefix (REDIS_KEY_PREFIX, the services' LADDER_KEY_PREFIX: lb:) and, for each user,
# the SHA-256 of its password, read from the variable the template names (ladder-shard-node:
# REDIS_SHARD_NODE_PASSWORD; at least 16 of A-Z a-z 0-9 . _ + / = -). A server needs every user's
# password (REDIS_SHARD_NODE, ROUTER, INGEST, ROUTER_ADMIN, REPLICATION, SENTINEL, SENTINEL_CLIENT); a
# Sentinel needs REDIS_SENTINEL_PASSWORD and REDIS_SENTINEL_CLIENT_PASSWORD. The files holding hashes or
# passwords (users.acl, redis.conf with the replication login, the Sentinel's config) are 0600 in the
# data directory, and the passwords' variables are removed before redis-server starts: no password is on
# a command line, in the image, or in the server's environment.
#
# server — a shard's redis-server on REDIS_BIND:REDIS_PORT (127.0.0.1:6379), no snapshots, no eviction,
# an append-only file only with REDIS_PERSIST=1, its memory in transparent huge pages unless
# REDIS_HUGE_PAGES=0 (the flags and allocator setting of deploy/local/src/redis-server.ts). Every
# node (a primary may become a replica) logs in to its primary as ladder-replication (masteruser). It
# starts as a replica of REDIS_REPLICA_OF (host:port) when given. With REDIS_SENTINELS (host:port,...) and
# REDIS_MASTER_NAME it asks the Sentinels first (as ladder-sentinel-client): a node they name another
# primary for starts as that primary's replica, whatever REDIS_REPLICA_OF says. A restarted container
# (its data directory holds the marker of an earlier start) that the Sentinels still name primary came
# back before they noticed its death: it waits, down, up to REDIS_REJOIN_WAIT_S (15 s) for the failover
# its absence causes, so that it rejoins as a replica instead of serving as an empty primary (with no
# replica to promote, it starts as the primary). REDIS_ANNOUNCE_HOST (default REDIS_BIND) is the name
# others reach it by (in Kubernetes its pod's DNS name; it then listens on REDIS_BIND=0.0.0.0 and
# announces the name to its primary).
#
# sentinel — a Redis Sentinel on SENTINEL_BIND:SENTINEL_PORT (127.0.0.1:26379) watching SENTINEL_MONITOR
# (name=host:port,...) with SENTINEL_QUORUM (2), SENTINEL_DOWN_AFTER_MS (2000) and
# SENTINEL_FAILOVER_TIMEOUT_MS (5000: Sentinel tries a failed election again after twice this, which must
# stay below the REDIS_REJOIN_WAIT_S a restarted primary waits for the failover); with SENTINEL_ANNOUNCE_HOST it announces that name and resolves
# the monitored primaries' host names (Kubernetes). It logs in to the nodes and to the other Sentinels as
# ladder-sentinel. Its config file is written at the first start only: Sentinel rewrites it as it learns
# replicas, peers and failovers, and a restart must keep what it learned; its users and logins are
# replaced at every start, so a changed password takes effect at the next one.
#
# TLS, an option: with REDIS_TLS_CERT_FILE (a PEM file holding the private key and the certificate, for
# the names the node or Sentinel is reached by) and REDIS_TLS_CA_FILE (the CA that signed it), a server or
# Sentinel serves TLS alone on its port (`--port 0 --tls-port`), replicates and talks to the nodes and the
# other Sentinels over TLS (tls-replication), and asks no client certificate; its own redis-cli calls
# trust that CA. The services reach such shards with LADDER_SENTINEL_TLS=1 and LADDER_REDIS_TLS_CA_FILE.
#
# The data directory is REDIS_DATA_DIR (/data).
set -euo pipefail

mode="${1:-server}"
shift || true
data="${REDIS_DATA_DIR:-/data}"
templates="${LADDER_REDIS_TEMPLATES:-/usr/local/share/ladder-redis}"
marker="$data/.ladder-started"
umask 077

tls_cli=() # redis-cli's TLS options, and the servers' (see TLS above)
tls_conf=()
if [ -n "${REDIS_TLS_CERT_FILE:-}" ]; then
  : "${REDIS_TLS_CA_FILE:?REDIS_TLS_CA_FILE is required with REDIS_TLS_CERT_FILE: the CA that signed it}"
  tls_cli=(--tls --cacert "$REDIS_TLS_CA_FILE")
  tls_conf=("tls-cert-file $REDIS_TLS_CERT_FILE" "tls-key-file $REDIS_TLS_CERT_FILE" "tls-ca-cert-file $REDIS_TLS_CA_FILE"
    "tls-auth-clients no" "tls-replication yes")
fi

listen() { # listen PORT: the config lines that serve PORT, in plaintext or (REDIS_TLS_CERT_FILE) TLS alone
  if [ "${#tls_conf[@]}" -eq 0 ]; then echo "port $1"; return; fi
  echo "port 0"; echo "tls-port $1"; printf '%s\n' "${tls_conf[@]}"
}

password() { # password VAR: prints $VAR, or fails naming it when it is unset or not a password
  local value="${!1:-}"
  if ! [[ "$value" =~ ^[A-Za-z0-9._+/=-]{16,}$ ]]; then
    echo "ladder-redis: $1 is required: the Redis user's password, at least 16 of A-Z a-z 0-9 . _ + / = -" >&2
    return 1
  fi
  printf '%s' "$value"
}

render() { # render TEMPLATE: its lines, each {{VAR}} replaced by #<sha256 of $VAR>, {{key-prefix}} by the prefix
  local line var pw hash prefix="${REDIS_KEY_PREFIX:-lb:}" marker_prefix='{{key-prefix}}'
  [[ "$prefix" =~ ^[A-Za-z0-9:._{}-]{0,64}$ ]] || { echo "ladder-redis: REDIS_KEY_PREFIX: at most 64 of A-Z a-z 0-9 : . _ { } -" >&2; return 1; }
  while IFS= read -r line; do
    while [[ "$line" =~ \{\{([A-Z0-9_]+)\}\} ]]; do
      var="${BASH_REMATCH[1]}"
      pw="$(password "$var")" || return 1
      hash="$(printf '%s' "$pw" | sha256sum)"
      line="${line//"{{$var}}"/#${hash%% *}}"
    done
    printf '%s\n' "${line//"$marker_prefix"/$prefix}"
  done <"$templates/$1"
}

drop_passwords() { # removes every REDIS_*_PASSWORD variable from the environment of what is exec'd next
  local v
  for v in $(compgen -v REDIS_); do [[ "$v" == *_PASSWORD ]] && unset "$v"; done
  return 0
}

sentinel_names() { # prints host:port of the primary the first answering Sentinel names, or nothing
  local s host port answer auth
  auth="$(password REDIS_SENTINEL_CLIENT_PASSWORD)" || return 1
  IFS=, read -ra list <<<"${REDIS_SENTINELS:-}"
  for s in "${list[@]}"; do
    host="${s%:*}"; port="${s##*:}"
    answer="$(REDISCLI_AUTH="$auth" redis-cli "${tls_cli[@]}" --user ladder-sentinel-client -h "$host" -p "$port" --raw \
      SENTINEL get-master-addr-by-name "$REDIS_MASTER_NAME" 2>/dev/null | paste -sd: || true)"
    if [[ "$answer" =~ ^[^:]+:[0-9]+$ ]]; then echo "$answer"; return 0; fi
  done
}

server() {
  local bind="${REDIS_BIND:-127.0.0.1}" port="${REDIS_PORT:-6379}"
  local self="${REDIS_ANNOUNCE_HOST:-$bind}:$port" primary="${REDIS_REPLICA_OF:-}"
  local acl="$data/users.acl" conf="$data/redis.conf" replication
  render users.acl.template >"$acl.tmp"
  mv "$acl.tmp" "$acl"
  replication="$(password REDIS_REPLICATION_PASSWORD)"
  { printf 'aclfile %s\nmasteruser ladder-replication\nmasterauth %s\n' "$acl" "$replication"; listen "$port"; } >"$conf.tmp"
  mv "$conf.tmp" "$conf"
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
  local args=(--bind "$bind" --dir "$data" --daemonize no --save "" --maxmemory-policy noeviction
    --repl-diskless-sync-delay 0 --protected-mode no)
  if [ "${REDIS_PERSIST:-0}" = 1 ]; then
    args+=(--appendonly yes --appendfsync everysec --auto-aof-rewrite-percentage 400 --auto-aof-rewrite-min-size 1gb)
  else
    args+=(--appendonly no)
  fi
  if [ "${REDIS_HUGE_PAGES:-1}" = 1 ]; then
    args+=(--disable-thp no)
    export MALLOC_CONF=thp:always,metadata_thp:always # Debian's redis-server: the system's jemalloc
  fi
  if [ -n "${REDIS_ANNOUNCE_HOST:-}" ]; then args+=(--replica-announce-ip "$REDIS_ANNOUNCE_HOST"); fi
  if [ -n "$primary" ]; then args+=(--replicaof "${primary%:*}" "${primary##*:}"); fi
  echo "ladder-redis: $self starting as ${primary:+replica of }${primary:-primary}"
  drop_passwords
  exec redis-server "$conf" "${args[@]}" "$@"
}

sentinel() {
  local bind="${SENTINEL_BIND:-127.0.0.1}" port="${SENTINEL_PORT:-26379}"
  local conf="$data/sentinel-$port.conf" tmp entry name address own
  local -a monitors
  IFS=, read -ra monitors <<<"${SENTINEL_MONITOR:?SENTINEL_MONITOR is required: name=host:port,...}"
  own="$(password REDIS_SENTINEL_PASSWORD)"
  tmp="$conf.tmp"
  if [ ! -f "$conf" ]; then
    {
      echo "bind $bind"; echo "daemonize no"; echo "dir $data"
      if [ -n "${SENTINEL_ANNOUNCE_HOST:-}" ]; then
        echo "sentinel resolve-hostnames yes"; echo "sentinel announce-hostnames yes"
        echo "sentinel announce-ip $SENTINEL_ANNOUNCE_HOST"
      fi
      for entry in "${monitors[@]}"; do
        name="${entry%%=*}"; address="${entry#*=}"
        echo "sentinel monitor $name ${address%:*} ${address##*:} ${SENTINEL_QUORUM:-2}"
        echo "sentinel down-after-milliseconds $name ${SENTINEL_DOWN_AFTER_MS:-2000}"
        echo "sentinel failover-timeout $name ${SENTINEL_FAILOVER_TIMEOUT_MS:-5000}"
        echo "sentinel parallel-syncs $name 1"
      done
    } >"$conf"
  fi
  # what Sentinel kept, without its ports, TLS, users and logins; then this start's (after the monitors they name)
  {
    grep -Ev '^(port |tls-|user |sentinel (sentinel-user|sentinel-pass|auth-user|auth-pass) )' "$conf" || true
    listen "$port"
    render sentinel-users.template
    echo "sentinel sentinel-user ladder-sentinel"; echo "sentinel sentinel-pass $own"
    for entry in "${monitors[@]}"; do
      name="${entry%%=*}"
      echo "sentinel auth-user $name ladder-sentinel"; echo "sentinel auth-pass $name $own"
    done
  } >"$tmp"
  mv "$tmp" "$conf"
  drop_passwords
  exec redis-server "$conf" --sentinel "$@"
}

ping() { # PONG from this container's server (as ladder-replication) or Sentinel (as ladder-sentinel), or fails
  local user=ladder-replication var=REDIS_REPLICATION_PASSWORD port="${REDIS_PORT:-6379}" auth answer
  if [ -n "${SENTINEL_MONITOR:-}" ]; then user=ladder-sentinel var=REDIS_SENTINEL_PASSWORD port="${SENTINEL_PORT:-26379}"; fi
  auth="$(password "$var")"
  answer="$(REDISCLI_AUTH="$auth" redis-cli "${tls_cli[@]}" --user "$user" -h 127.0.0.1 -p "$port" ping 2>&1 || true)"
  [ "$answer" = PONG ] || { echo "ladder-redis: 127.0.0.1:$port answers: $answer" >&2; return 1; }
}

case "$mode" in
  server) server "$@" ;;
  sentinel) sentinel "$@" ;;
  ping) ping ;;
  acl) render users.acl.template ;;
  *) echo "usage: ladder-redis server|sentinel|ping|acl [args...]" >&2; exit 2 ;;
esac
