#!/bin/sh
# Entry point of the services image: `ladder <service> [args...]` runs one of the cluster's programs
# from /app, its compiled JavaScript (dist/) as the local launcher runs it (deploy/local/src/services.ts).
set -eu
service="${1:-}"
case "$service" in
  shard-node) entry=shard-node/dist/main.js ;;
  router) entry=router/dist/main.js ;;
  ingest) entry=ingest/dist/main.js ;;
  gateway) entry=gateway/dist/main.js ;; # the browser gateway: HTTP, and the dashboard's files (gateway/public)
  cli) entry=cli/dist/main.js ;;
  kafka-acls) entry=log/dist/acls-main.js ;; # the roles' ACLs on a secured Kafka (log/src/kafka-acls.ts), then exits
  *) echo "usage: ladder shard-node|router|ingest|gateway|cli|kafka-acls [args...]" >&2; exit 2 ;;
esac
shift
cd /app
exec node "$entry" "$@"
