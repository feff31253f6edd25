#!/usr/bin/env bash
# `npm run test:containers`: the tests that need a Docker engine (vitest.containers.config.ts) — the
# integration harness's container path (Kafka and Redis through testcontainers), the end-to-end cluster
# test on it, the images, and the compose deployment under a broker's and a Redis primary's death.
#
# Uses the engine that answers (DOCKER_HOST or /var/run/docker.sock); when none does, starts one of its
# own on a private socket (deploy/images/engine.sh; so that other test runs on this machine keep their
# local-process path) and stops it at the end, whatever the outcome. Installs what is missing
# (docker.io, debootstrap, docker-compose from Debian), then builds the images (deploy/images/build.sh,
# cached between runs) and runs the tests. Prints how long each part took.
#
# `--prepare` does everything but the tests, and leaves an engine it started running (scripts/test-all.sh
# runs it beside `npm test`, then this script again for the tests, and stops that engine).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
if ((${#missing[@]})); then
  echo "test:containers: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

own_engine=0
if ! docker info >/dev/null 2>&1; then
  export DOCKER_HOST="unix:///run/ladder-dockerd/docker.sock"
  if ! docker info >/dev/null 2>&1; then
    bash deploy/images/engine.sh start
    own_engine=1
  fi
fi
prepare_only=0
[ "${1:-}" = "--prepare" ] && prepare_only=1
stop_engine() { if [ "$own_engine" = 1 ] && [ "$prepare_only" = 0 ]; then bash deploy/images/engine.sh stop; fi; }
trap stop_engine EXIT

echo "test:containers: engine ready after $((SECONDS - started)) s"
images_started=$SECONDS
bash deploy/images/build.sh
echo "test:containers: images ready in $((SECONDS - images_started)) s"
if [ "$prepare_only" = 1 ]; then
  echo "test:containers: prepared in $((SECONDS - started)) s (engine $([ "$own_engine" = 1 ] && echo "started here, left running" || echo "already running"))"
  exit 0
fi
tests_started=$SECONDS
npx vitest run --config vitest.containers.config.ts
echo "test:containers: tests ran in $((SECONDS - tests_started)) s; all in $((SECONDS - started)) s"
