#!/bin/sh
# Entry point of the services image: `ladder <service> [args...]` runs one of the cluster's programs
# from /app, its compiled JavaScript as the local launcher runs it (deploy/local/src/built-entry.ts): the
# one-file bundle the build makes beside each program's dist/ file (scripts/bundle.ts).
set -eu
service="${1:-}"
case "$service" in
  shard-node) entry=shard-node/dist/main.bundle.js ;;
  router) entry=router/dist/main.bundle.js ;;
  ingest) entry=ingest/dist/main.bundle.js ;;
  gateway) entry=gateway/dist/main.bundle.js ;; # the browser gateway: HTTP, and the dashboard's files (gateway/public)
  cli) entry=cli/dist/main.bundle.js ;;
  kafka-acls) entry=log/dist/acls-main.bundle.js ;; # the roles' ACLs on a secured Kafka (log/src/kafka-acls.ts), then exits
  *) echo "usage: ladder shard-node|router|ingest|gateway|cli|kafka-acls [args...]" >&2; exit 2 ;;
esac
shift
cd /app
exec node "$entry" "$@"
