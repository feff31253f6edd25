#!/usr/bin/env bash
# `npm run test:all`: the whole suite, the README's test command — `npm test` (build, typecheck, lint,
# then vitest: unit tests and the integration tests on local processes) and the tests that need a
# Docker engine (scripts/test-containers.sh).
#
# Preparing the containers' tests (Debian's docker.io, an engine, the images: debootstrap, apt-get,
# npm ci) mostly waits for downloads and disks, so it runs in the background beside `npm test`, from
# the build made first (LADDER_IMAGES_BUILT: nothing rewrites dist/ under the running tests); the
# container tests run once both are done. The preparation's output is kept in
# .ladder/test-logs/containers-prepare.log and shown at the end. Exits non-zero when any part fails; an
# engine the preparation started is stopped at the end, whatever happened.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
logs=.ladder/test-logs
mkdir -p "$logs"
prepare_log="$logs/containers-prepare.log"

npm run build --silent

# The engine the container steps use: the one that answers, else one on a private socket (as
# scripts/test-containers.sh chooses it). Only those steps are given it: `npm test` keeps its
# local-process path (test/global-setup.ts would start Kafka and Redis in containers on an engine it sees).
engine_host="${DOCKER_HOST:-}"
if ! docker info >/dev/null 2>&1; then engine_host="unix:///run/ladder-dockerd/docker.sock"; fi
in_engine() { if [ -n "$engine_host" ]; then DOCKER_HOST="$engine_host" "$@"; else "$@"; fi; }
engine_before=0
in_engine docker info >/dev/null 2>&1 && engine_before=1
LADDER_IMAGES_BUILT=1 in_engine bash scripts/test-containers.sh --prepare >"$prepare_log" 2>&1 &
prepare=$!
finish() {
  kill "$prepare" 2>/dev/null && wait "$prepare" 2>/dev/null
  if [ "$engine_before" = 0 ] && in_engine docker info >/dev/null 2>&1; then in_engine bash deploy/images/engine.sh stop; fi
}
trap finish EXIT

tests_status=0
npm test || tests_status=$?
echo "test:all: npm test ended ($tests_status) after $((SECONDS - started)) s"
prepare_status=0
wait "$prepare" || prepare_status=$?
echo "test:all: the containers' preparation ($prepare_log):"
sed 's/^/  /' "$prepare_log"
[ "$prepare_status" = 0 ] || { echo "test:all: the containers' preparation failed ($prepare_status)" >&2; exit 1; }
[ "$tests_status" = 0 ] || exit "$tests_status"
in_engine bash scripts/test-containers.sh
echo "test:all: the whole suite passed in $((SECONDS - started)) s"
