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
#   KAFKA_DATA_DIR           where the log dir and the broker's own log live (default /var/lib/kafka)
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

mkdir -p "$data_dir/logs"
config="$data_dir/server.properties"
cat >"$config" <<PROPS
# Written by ladder-kafka at every start.
process.roles=broker,controller
node.id=${node_id}
controller.quorum.voters=${voters}
listeners=PLAINTEXT://${host}:${port},CONTROLLER://${host}:${controller_port}
advertised.listeners=PLAINTEXT://${KAFKA_ADVERTISED_HOST:-$host}:${port}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
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

classpath="/opt/kafka/libs/*"
read -ra heap <<<"${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}"
jvm=("${heap[@]}" -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true
  "-Dlog4j2.configurationFile=/opt/kafka/log4j2.xml" "-Dkafka.logs.dir=${data_dir}")

if [ ! -f "$data_dir/logs/meta.properties" ]; then
  java "${jvm[@]}" -cp "$classpath" kafka.tools.StorageTool format -t "$cluster_id" -c "$config"
fi
exec java "${jvm[@]}" -cp "$classpath" kafka.Kafka "$config"
