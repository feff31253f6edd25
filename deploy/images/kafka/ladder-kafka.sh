#!/bin/bash
# Entry point of the Kafka image: writes server.properties from the environment, formats the log dir
# once (a restarted container keeps its data and its cluster id), then runs the broker in the
# foreground. Broker and controller run in one JVM (KRaft combined mode), on 127.0.0.1 ports, for host
# networking. The settings mirror the local broker's (deploy/local/src/kafka-config.ts); replication of
# the internal topics follows the number of voters.
#
#   KAFKA_NODE_ID            this node's id (default 1)
#   KAFKA_CLUSTER_ID         the cluster id, the same for every node (required: 22 base64url characters)
#   KAFKA_PORT               client listener port on KAFKA_HOST (default 9092)
#   KAFKA_CONTROLLER_PORT    controller listener port (default 9093)
#   KAFKA_HOST               the address listened on (default 127.0.0.1)
#   KAFKA_ADVERTISED_HOST    the name clients reach this broker by (default KAFKA_HOST; in Kubernetes
#                            the pod's DNS name, with KAFKA_HOST=0.0.0.0)
#   KAFKA_VOTERS             controller.quorum.voters, e.g. 1@127.0.0.1:9093,2@127.0.0.1:9095 (default: this node alone)
#   KAFKA_MIN_ISR            min.insync.replicas of the internal topics and the broker default
#                            (default: 1 with one voter, else 2)
#   KAFKA_HEAP_OPTS          JVM heap flags (default -Xms256m -Xmx768m)
#   KAFKA_JVM_OPTS           further JVM flags (default none), e.g. -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
#                            for brokers of light load sharing a small machine (the compose file's)
#   KAFKA_DATA_DIR           where the log dir and the broker's own log live (default /var/lib/kafka)
#   KAFKA_LIBS_DIR           the broker's jars (default /opt/kafka/libs); KAFKA_LOG4J its log4j2.xml
#
# Secured (KAFKA_BROKER_PASSWORD set), as the local broker (kafka-config.ts) but over the network:
# clients and brokers log in with SCRAM-SHA-512 over TLS (listener SASL_SSL), the controllers with PLAIN
# over TLS; StandardAuthorizer, no ACL = no access, the broker's own user `broker` the one super user.
#   KAFKA_BROKER_PASSWORD    the password of `broker` (the same on every node)
#   KAFKA_SCRAM_USERS        name=password,... : the SCRAM-SHA-512 users made when the log dir is formatted
#   KAFKA_TLS_DIR            ca.pem and broker.pem (private key, then certificate; ladder-kafka-tls makes
#                            them), waited for up to 120 s (default /etc/ladder/kafka-tls)
# Passwords of letters, digits, - and _ only (they are written into JAAS lines and command lines).
set -euo pipefail

node_id="${KAFKA_NODE_ID:-1}"
host="${KAFKA_HOST:-127.0.0.1}"
port="${KAFKA_PORT:-9092}"
controller_port="${KAFKA_CONTROLLER_PORT:-9093}"
voters="${KAFKA_VOTERS:-${node_id}@${host}:${controller_port}}"
data_dir="${KAFKA_DATA_DIR:-/var/lib/kafka}"
cluster_id="${KAFKA_CLUSTER_ID:?KAFKA_CLUSTER_ID is required (22 base64url characters, the same on every node)}"
IFS=, read -ra voter_list <<<"$voters"
nodes=${#voter_list[@]}
replication=$((nodes < 3 ? nodes : 3))
min_isr="${KAFKA_MIN_ISR:-$((replication > 1 ? 2 : 1))}"

client=PLAINTEXT
controller_protocol=PLAINTEXT
broker_password="${KAFKA_BROKER_PASSWORD:-}"
tls_dir="${KAFKA_TLS_DIR:-/etc/ladder/kafka-tls}"
if [ -n "$broker_password" ]; then
  client=SASL_SSL
  controller_protocol=SASL_SSL
  for pw in "$broker_password" $(tr ',' '\n' <<<"${KAFKA_SCRAM_USERS:-}" | sed 's/^[^=]*=//'); do
    [[ "$pw" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "ladder-kafka: a password holds characters other than letters, digits, - and _" >&2; exit 2; }
  done
  for _ in $(seq 120); do [ -f "$tls_dir/broker.pem" ] && [ -f "$tls_dir/ca.pem" ] && break; sleep 1; done
  [ -f "$tls_dir/broker.pem" ] || { echo "ladder-kafka: no $tls_dir/broker.pem (make it with ladder-kafka-tls)" >&2; exit 2; }
fi

mkdir -p "$data_dir/logs"
config="$data_dir/server.properties"
umask 077 # it holds the broker's password
cat >"$config" <<PROPS
# Written by ladder-kafka at every start.
process.roles=broker,controller
node.id=${node_id}
controller.quorum.voters=${voters}
listeners=${client}://${host}:${port},CONTROLLER://${host}:${controller_port}
advertised.listeners=${client}://${KAFKA_ADVERTISED_HOST:-$host}:${port}
listener.security.protocol.map=${client}:${client},CONTROLLER:${controller_protocol}
controller.listener.names=CONTROLLER
inter.broker.listener.name=${client}
log.dirs=${data_dir}/logs
num.partitions=1
default.replication.factor=${replication}
min.insync.replicas=${min_isr}
auto.create.topics.enable=false
offsets.topic.replication.factor=${replication}
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=${replication}
transaction.state.log.min.isr=${min_isr}
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=${replication}
share.coordinator.state.topic.min.isr=${min_isr}
group.initial.rebalance.delay.ms=0
broker.session.timeout.ms=4000
broker.heartbeat.interval.ms=1000
PROPS
if [ -n "$broker_password" ]; then
  cat >>"$config" <<PROPS
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" password="${broker_password}";
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="${broker_password}" user_broker="${broker_password}";
sasl.mechanism.controller.protocol=PLAIN
ssl.keystore.type=PEM
ssl.keystore.location=${tls_dir}/broker.pem
ssl.truststore.type=PEM
ssl.truststore.location=${tls_dir}/ca.pem
ssl.client.auth=none
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:broker
PROPS
fi
umask 022

classpath="${KAFKA_LIBS_DIR:-/opt/kafka/libs}/*"
read -ra heap <<<"${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"
read -ra extra <<<"${KAFKA_JVM_OPTS:-}"
jvm=("${heap[@]}" "${extra[@]}" -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=${KAFKA_LOG4J:-/opt/kafka/log4j2.xml}" "-Dkafka.logs.dir=${data_dir}")

if [ ! -f "$data_dir/logs/meta.properties" ]; then
  scram=()
  if [ -n "$broker_password" ]; then
    scram=(--add-scram "SCRAM-SHA-512=[name=broker,password=${broker_password}]")
    IFS=, read -ra users <<<"${KAFKA_SCRAM_USERS:-}"
    for u in "${users[@]}"; do scram+=(--add-scram "SCRAM-SHA-512=[name=${u%%=*},password=${u#*=}]"); done
  fi
  java "${jvm[@]}" -cp "$classpath" kafka.tools.StorageTool format -t "$cluster_id" -c "$config" "${scram[@]}" >/dev/null
fi
exec java "${jvm[@]}" -cp "$classpath" kafka.Kafka "$config"
