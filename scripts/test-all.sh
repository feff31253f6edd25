#!/usr/bin/env bash
# `npm run test:all`: the whole suite, the README's test command — `npm test` (build, typecheck, lint,
# then vitest: unit tests and the integration tests on local processes) and the tests that need a
# Docker engine (scripts/test-containers.sh).
#
# The container tests run in the background beside `npm test`: first their preparation (Debian's
# docker.io, an engine, the images: debootstrap, apt-get, npm ci), from the build made first
# (LADDER_IMAGES_BUILT: nothing rewrites dist/ under the running tests), then the tests themselves.
# Both mostly overlap the first group of `npm test` (unit tests and the integration files that check
# answers and state, two at a time), which leaves part of the machine idle; the timed integration files
# run alone after it, as vitest.config.ts wants them, unless the container tests are still running
# then. The compose deployment listens on fixed ports below the kernel's ephemeral range, the local
# tests on ports the kernel gives them, so the two never collide. The container side's output is kept
# in .ladder/test-logs/containers.log and shown at the end. Exits non-zero when any part fails; an
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
containers_log="$logs/containers.log"
containers() {
  local t=$SECONDS
  LADDER_IMAGES_BUILT=1 in_engine bash scripts/test-containers.sh --prepare >"$prepare_log" 2>&1 || return 2
  echo "test:all: the containers' preparation ended after $((SECONDS - started)) s ($((SECONDS - t)) s)" >"$containers_log"
  in_engine bash scripts/test-containers.sh >>"$containers_log" 2>&1
}
set -m # the background side in a process group of its own, so that it can be stopped whole
containers &
side=$!
set +m
finish() {
  kill -- -"$side" 2>/dev/null && wait "$side" 2>/dev/null
  if [ "$engine_before" = 0 ] && in_engine docker info >/dev/null 2>&1; then in_engine bash deploy/images/engine.sh stop; fi
}
trap finish EXIT

tests_status=0
npm test || tests_status=$?
echo "test:all: npm test ended ($tests_status) after $((SECONDS - started)) s"
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
[ "$side_status" = 0 ] || { echo "test:all: the container tests failed ($side_status)" >&2; exit 1; }
[ "$tests_status" = 0 ] || exit "$tests_status"
echo "test:all: the whole suite passed in $((SECONDS - started)) s"
