#!/usr/bin/env bash
# Installs whatever ladder needs and this machine lacks, then returns: redis-server, a Java 17+ runtime,
# Maven, openssl, kubectl and chromium (Debian packages), the npm dependencies (npm ci, only when missing or out of date), and the
# Kafka broker's jars (Maven Central, cached in ~/.cache/ladder). Safe to run again: it does nothing
# that is already done. Used by the README's two commands and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if ! java -version 2>&1 | grep -qE 'version "(1[7-9]|[2-9][0-9])'; then missing+=(openjdk-17-jre-headless); fi
command -v mvn >/dev/null 2>&1 || missing+=(maven)
command -v openssl >/dev/null 2>&1 || missing+=(openssl) # the TLS test makes a certificate
command -v kubectl >/dev/null 2>&1 || missing+=(kubernetes-client) # kubectl kustomize renders deploy/k8s
command -v chromium >/dev/null 2>&1 || missing+=(chromium) # the dashboard's test drives it headless (test/dashboard.int.test.ts)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi

node --import tsx deploy/local/src/fetch-kafka.ts
