#!/bin/bash
# Makes a Kafka cluster's TLS material with openssl: a CA of its own and one certificate for every
# broker, valid for the names given (Subject Alternative Names), in the PEM files the brokers read
# (ladder-kafka: ssl.keystore.type=PEM). The CA's key signs once and is deleted: no certificate is
# made later under that CA (make a new set instead). Does nothing when the directory has them already.
#
#   ladder-kafka-tls DIR SAN...   e.g. ladder-kafka-tls /tls IP:127.0.0.1 DNS:localhost
#                                 or   ladder-kafka-tls out 'DNS:*.kafka' 'DNS:*.kafka.ladder.svc.cluster.local'
#
#   DIR/ca.pem       the CA's certificate: what clients trust (LADDER_KAFKA_TLS_CA)
#   DIR/broker.pem   the brokers' private key (PKCS#8), then their certificate (mode 0640)
set -euo pipefail
dir="${1:?usage: ladder-kafka-tls DIR SAN...}"
shift
[ "$#" -gt 0 ] || { echo "usage: ladder-kafka-tls DIR SAN... (at least one name, e.g. DNS:localhost)" >&2; exit 2; }
if [ -f "$dir/ca.pem" ] && [ -f "$dir/broker.pem" ]; then exit 0; fi
mkdir -p "$dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sans="$(IFS=,; echo "$*")"
openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=ladder Kafka CA" \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=kafka" -keyout "$work/broker.key" -out "$work/broker.csr" 2>/dev/null
printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n' "$sans" >"$work/ext"
openssl x509 -req -in "$work/broker.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 3650 \
  -extfile "$work/ext" -out "$work/broker.crt" 2>/dev/null
(umask 027 && cat "$work/broker.key" "$work/broker.crt" >"$dir/broker.pem")
cp "$work/ca.pem" "$dir/ca.pem"
chmod 0644 "$dir/ca.pem"
chmod 0755 "$dir"
# run as root (compose's init step): the brokers' key goes to the kafka user, readable by no other
if [ "$(id -u)" = 0 ] && id kafka >/dev/null 2>&1; then chown kafka:kafka "$dir/broker.pem"; fi
