#!/bin/bash
# usage: run.sh <checkout> <tag> <players>   one move under write load, results in /root/exp/<tag>
set -u
DIR=$1; TAG=$2; N=${3:-6M}
OUT=/root/exp/$TAG; mkdir -p $OUT
cd $DIR && export PATH=$PWD/node_modules/.bin:$PATH
ts() { date -u +%H:%M:%S.%3N; }
echo "$(ts) start cluster" >> $OUT/timeline
LADDER_SNAPSHOTS=0 nohup npm start > $OUT/cluster.log 2>&1 &
for i in $(seq 1 120); do npm run -s cli -- status > /dev/null 2>&1 && break; sleep 2; done
npm run -s cli -- status > $OUT/status-before.txt 2>&1
echo "$(ts) seed $N" >> $OUT/timeline
npm run seed -- --players $N --board mv --max-behind 0 > $OUT/seed.log 2>&1
echo "$(ts) seeded" >> $OUT/timeline
redis-server --port 7004 --save '' --appendonly no --aclfile .ladder/redis-0/users.acl --logfile $OUT/redis-7004.log --daemonize yes
LADDER_SHARD_ID=shard-3 LADDER_SHARDS=shard-0=redis://127.0.0.1:7001,shard-1=redis://127.0.0.1:7002,shard-2=redis://127.0.0.1:7003,shard-3=redis://127.0.0.1:7004 \
  LADDER_REDIS_USERNAME=ladder-shard-node LADDER_REDIS_PASSWORD_FILE=.ladder/secrets/ladder-shard-node.password \
  LADDER_KAFKA_SASL_MECHANISM=scram-sha-512 LADDER_KAFKA_SASL_USERNAME=shard LADDER_KAFKA_SASL_PASSWORD_FILE=.ladder/secrets/kafka-shard.password \
  LADDER_KAFKA_TLS_CA=.ladder/kafka/tls/ca.pem LADDER_SHARD_METRICS_LISTEN=127.0.0.1:9473 nohup npm run shard-node > $OUT/shard-3.log 2>&1 &
NODE=$!
sleep 5
echo "$(ts) writes start" >> $OUT/timeline
npm run -s loadtest -- --board mva --players 1M --mix write=100 --write-op inc --audit-every 16 --batch 100 --rate 50 --warmup 5s --duration ${DUR:-7m} --out $OUT --name writes > $OUT/loadtest.log 2>&1 &
LT=$!
sleep 40
echo "$(ts) reshard --add" >> $OUT/timeline
npm run -s cli -- reshard --add shard-3=redis://127.0.0.1:7004 2>&1 | while IFS= read -r l; do echo "$(ts) $l"; done > $OUT/reshard.log
echo "$(ts) reshard returned" >> $OUT/timeline
wait $LT
echo "$(ts) writes done" >> $OUT/timeline
npm run -s cli -- count --board mv > $OUT/count.txt 2>&1
cp -r .ladder/logs $OUT/ladder-logs 2>/dev/null
npm run -s stop >> $OUT/timeline 2>&1
pkill -f "shard-node/dist/main.bundle.js"; pkill -f "redis-server \*:7004"; sleep 2
npm run -s cluster -- reset >> $OUT/timeline 2>&1
echo "$(ts) end" >> $OUT/timeline
