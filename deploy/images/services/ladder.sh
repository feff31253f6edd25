#!/bin/sh
# Entry point of the services image: `ladder <service> [args...]` runs one of the cluster's programs
# from /app with tsx, as the local launcher does (deploy/local/src/services.ts).
set -eu
service="${1:-}"
case "$service" in
  shard-node) entry=shard-node/src/main.ts ;;
  router) entry=router/src/main.ts ;;
  ingest) entry=ingest/src/main.ts ;;
  gateway) entry=gateway/src/main.ts ;; # the browser gateway: HTTP, and the dashboard's files (gateway/public)
  cli) entry=cli/src/main.ts ;;
  *) echo "usage: ladder shard-node|router|ingest|gateway|cli [args...]" >&2; exit 2 ;;
esac
shift
cd /app
exec node --import tsx "$entry" "$@"
