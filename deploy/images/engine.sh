#!/usr/bin/env bash
# Starts or stops the Docker engine the container tests need, on a machine without a Docker image
# registry or a bridge network: `dockerd --bridge=none --iptables=false`, so every container runs with
# host networking on loopback ports. `start` does nothing when an engine already answers (and then
# `stop` leaves that engine alone: only an engine this script started, named by its pid file, is
# stopped). Installs Debian's docker.io when dockerd is missing. With DOCKER_HOST=unix:///path the engine
# listens there instead of /var/run/docker.sock (clients given the same DOCKER_HOST find it; others don't).
#
#   bash deploy/images/engine.sh start   # waits until `docker info` answers (60 s at most)
#   bash deploy/images/engine.sh stop    # SIGTERM to the engine it started, waits for it to exit
set -euo pipefail

STATE_DIR="${LADDER_ENGINE_STATE:-/run/ladder-dockerd}"
PID_FILE="$STATE_DIR/dockerd.pid"
LOG_FILE="$STATE_DIR/dockerd.log"

engine_answers() { docker info >/dev/null 2>&1; }

start() {
  if engine_answers; then
    echo "engine: a docker engine already answers; using it"
    return 0
  fi
  if ! command -v dockerd >/dev/null 2>&1; then
    echo "engine: installing docker.io"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq docker.io >/dev/null
  fi
  mkdir -p "$STATE_DIR"
  # setsid: the engine outlives this script but is stopped by `stop`, by its pid
  local listen=()
  case "${DOCKER_HOST:-}" in
    unix://*) listen=(-H "$DOCKER_HOST") ;;
    "") ;;
    *) echo "engine: DOCKER_HOST=$DOCKER_HOST is not a unix socket" >&2; return 1 ;;
  esac
  setsid dockerd "${listen[@]}" --bridge=none --iptables=false --ip-masq=false --pidfile "$PID_FILE.dockerd" \
    >"$LOG_FILE" 2>&1 < /dev/null &
  echo $! >"$PID_FILE"
  for _ in $(seq 1 120); do
    if engine_answers; then
      echo "engine: dockerd $(cat "$PID_FILE") answers (log $LOG_FILE)"
      return 0
    fi
    if ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
      echo "engine: dockerd exited; its log:" >&2
      tail -30 "$LOG_FILE" >&2
      rm -f "$PID_FILE"
      return 1
    fi
    sleep 0.5
  done
  echo "engine: dockerd did not answer within 60 s; its log:" >&2
  tail -30 "$LOG_FILE" >&2
  return 1
}

stop() {
  [ -f "$PID_FILE" ] || { echo "engine: none started by this script"; return 0; }
  local pid
  pid="$(cat "$PID_FILE")"
  if kill -0 "$pid" 2>/dev/null; then
    # containers left running would keep the engine's shutdown waiting: stop them first
    local running
    running="$(docker ps -q 2>/dev/null || true)"
    [ -z "$running" ] || docker rm -f $running >/dev/null 2>&1 || true
    kill -TERM "$pid"
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$PID_FILE"
  echo "engine: dockerd $pid stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
