#!/usr/bin/env bash
# `npm run test:all`: the whole suite, the README's test command — what `npm test` runs (build,
# typecheck, lint, then vitest: unit tests and the integration tests on local processes) and the tests
# that need a Docker engine (scripts/test-containers.sh).
#
# Two cores serve it all, so the parts are placed by what they tolerate:
#   1. the build, then in the background the container side: its preparation (Debian's docker.io, an
#      engine, the images: debootstrap, apt-get, npm ci; LADDER_IMAGES_BUILT: from that build, nothing
#      rewrites dist/ under the running tests), then the container tests themselves;
#   2. meanwhile typecheck, lint and vitest's first group (projects unit and integration: files that
#      check answers and state, not timings), which tolerate a busy machine;
#   3. once both are done, vitest's timed groups (integration-lanes, integration-alone: readiness
#      deadlines, staleness bounds, kills and partitions), never beside the container tests.
# The compose deployment listens on fixed ports below the kernel's ephemeral range, the local tests on
# ports the kernel gives them, so the two never collide. The container side's output is kept in
# .ladder/test-logs/ and shown once it is done; every part's output is also kept there, and the last
# lines printed are a summary naming each part's outcome and the test files and tests that failed (a
# CI log is often read from its end). Exits non-zero when any part fails; an engine the preparation
# started is stopped at the end, whatever happened.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
logs=.ladder/test-logs
mkdir -p "$logs"
prepare_log="$logs/containers-prepare.log"
containers_log="$logs/containers.log"
first_log="$logs/first-group.log"
timed_log="$logs/timed-groups.log"

npm run build --silent

# The engine the container steps use: the one that answers, else one on a private socket (as
# scripts/test-containers.sh chooses it). Only those steps are given it: vitest keeps its
# local-process path (test/global-setup.ts would start Kafka and Redis in containers on an engine it sees).
engine_host="${DOCKER_HOST:-}"
if ! docker info >/dev/null 2>&1; then engine_host="unix:///run/ladder-dockerd/docker.sock"; fi
in_engine() { if [ -n "$engine_host" ]; then DOCKER_HOST="$engine_host" "$@"; else "$@"; fi; }
engine_before=0
in_engine docker info >/dev/null 2>&1 && engine_before=1
: >"$containers_log"
containers() {
  local t=$SECONDS
  LADDER_IMAGES_BUILT=1 in_engine bash scripts/test-containers.sh --prepare >"$prepare_log" 2>&1 || return 2
  echo "test:all: the containers' preparation ended after $((SECONDS - started)) s ($((SECONDS - t)) s)" >"$containers_log"
  in_engine bash scripts/test-containers.sh >>"$containers_log" 2>&1
  echo "test:all: the container tests ended after $((SECONDS - started)) s" >>"$containers_log"
}
set -m # the container side in a process group of its own, so that it can be stopped whole
containers &
side=$!
set +m
finish() {
  kill -- -"$side" 2>/dev/null && wait "$side" 2>/dev/null
  if [ "$engine_before" = 0 ] && in_engine docker info >/dev/null 2>&1; then in_engine bash deploy/images/engine.sh stop; fi
}
trap finish EXIT

first_status=0
{ npm run typecheck && npm run lint && npx vitest run --project unit --project integration; } 2>&1 | tee "$first_log" || first_status=$?
echo "test:all: typecheck, lint and vitest's first group ended ($first_status) after $((SECONDS - started)) s"

side_status=0
wait "$side" || side_status=$?
echo "test:all: the containers' preparation ($prepare_log):"
sed 's/^/  /' "$prepare_log"
if [ "$side_status" = 2 ]; then
  echo "test:all: the containers' preparation failed" >&2
  exit 1
fi
echo "test:all: the container tests ($containers_log):"
cat "$containers_log"

timed_status=0
npx vitest run --project integration-lanes --project integration-alone 2>&1 | tee "$timed_log" || timed_status=$?
echo "test:all: vitest's timed groups ended ($timed_status) after $((SECONDS - started)) s"

# The summary: each part's outcome, and what vitest named as failed (its FAIL lines, colours removed).
failures() { sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -E '^ *(FAIL|×) |^ *(Test Files|Tests) ' | awk '!seen[$0]++' | head -40 | sed 's/^/    /' || true; }
outcome() { if [ "$1" = 0 ]; then echo passed; else echo "FAILED ($1)"; fi; }
echo "test:all: summary after $((SECONDS - started)) s"
echo "  typecheck, lint, vitest's first group: $(outcome "$first_status") ($first_log)"
[ "$first_status" = 0 ] || failures "$first_log"
echo "  container tests: $(outcome "$side_status") ($containers_log)"
[ "$side_status" = 0 ] || failures "$containers_log"
echo "  vitest's timed groups: $(outcome "$timed_status") ($timed_log)"
[ "$timed_status" = 0 ] || failures "$timed_log"
[ "$first_status" = 0 ] && [ "$side_status" = 0 ] && [ "$timed_status" = 0 ] || exit 1
echo "test:all: the whole suite passed in $((SECONDS - started)) s"
