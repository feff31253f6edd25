/**
 * Before a shard node applies anything: make sure the score topic exists and is what the
 * cluster is configured for, and that the shard's Redis was built from this topic, these
 * slots and these board specs (store/identity.ts). Refusals are final: a configuration
 * mismatch does not heal by retrying.
 *
 *   - The node creates the score topic only when its Redis holds no data at all. A missing
 *     topic with data present means the log that data came from is gone: creating a new
 *     empty topic would make the shard skip the new records as "already applied".
 *   - A Redis without a built-from record but with data (filled before shards recorded it)
 *     adopts the node's, with a warning; an empty one records it.
 *   - Any difference in built-from is refused, naming what differs.
 */
import { ensureScoreTopic, ScoreTopicInvalid, ScoreTopicMissing, type ScoreTopicPolicy } from "@ladder/log/kafka";
import type { TopicIds } from "@ladder/log/topic-ids";
import type { LogClient } from "@ladder/log/log-client";
import type { Logger } from "@ladder/platform/logger";
import { builtFrom as builtFromOf, explainMismatch, stampFields } from "@ladder/store";
import type { ShardState } from "@ladder/store/writer";

/** A refusal to run: the message says what differs and what to do. */
export class BuildMismatch extends Error {
  override readonly name = "BuildMismatch";
}

export interface BuildCheckOptions {
  logClient: LogClient;
  topicIds: TopicIds;
  policy: ScoreTopicPolicy;
  shardId: string;
  stamp: string;
  /** What the shard's Redis holds now. */
  state: ShardState;
  /**
   * An earlier run of this process checked the score topic's partitions and settings: only its id
   * is asked again (a run for new slots after a move starts while reads wait for it; the running
   * readiness asks the id every tick anyway).
   */
  topicChecked?: boolean;
  log: Logger;
}

/** Returns the built-from value the node writes under, or throws BuildMismatch. */
export async function checkBuild(o: BuildCheckOptions): Promise<{ builtFrom: string; record: boolean }> {
  const topic = o.policy.topic;
  if (!o.topicChecked) await checkTopic(o);
  const topicId = await o.topicIds.idOf(topic);
  if (!topicId)
    throw o.topicChecked
      ? new BuildMismatch(`${o.shardId}: score topic ${topic} no longer exists`)
      : new Error(`score topic ${topic} has no topic id (is the broker older than Kafka 2.8?)`);
  const builtFrom = builtFromOf(o.stamp, topicId);
  if (o.state.builtFrom === undefined) {
    if (o.state.hasData)
      o.log.warn({ builtFrom }, "this shard's Redis has data but no record of what it was built from: recording the current configuration");
    return { builtFrom, record: true };
  }
  if (o.state.builtFrom !== builtFrom)
    throw new BuildMismatch(
      `${o.shardId}: this shard's Redis was built from something else than this node's configuration: ${explainMismatch(builtFrom, o.state.builtFrom)}. Fix the configuration, or rebuild the shard from the log (npm run cli -- rebuild --shard ${o.shardId}).`,
    );
  return { builtFrom, record: false };
}

/** The score topic as the policy wants it, created when the shard's Redis holds nothing yet; BuildMismatch otherwise. */
async function checkTopic(o: BuildCheckOptions): Promise<void> {
  const topic = o.policy.topic;
  try {
    const info = await ensureScoreTopic(o.logClient, o.policy, { create: !o.state.hasData });
    if (info.created)
      o.log.info({ topic, replication: info.replication, minInsyncReplicas: info.minInsyncReplicas }, "created the score topic");
  } catch (err) {
    if (err instanceof ScoreTopicInvalid) throw new BuildMismatch(`${o.shardId}: ${err.message}`);
    if (err instanceof ScoreTopicMissing)
      throw new BuildMismatch(
        `${o.shardId}: score topic ${topic} does not exist, but this shard's Redis holds data built from it (${o.state.builtFrom ?? "before shards recorded their source"}); refusing to create a new, empty topic under it. Restore the topic, or clear the shard's keys to start over.`,
      );
    throw err;
  }
}

/** While running: the topic id must not change (the topic was deleted and created again). */
export async function topicProblem(topicIds: TopicIds, topic: string, builtFrom: string): Promise<string | undefined> {
  const id = await topicIds.idOf(topic);
  const expected = stampFields(builtFrom).get("topic-id");
  if (id === expected) return undefined;
  return id === undefined
    ? `score topic ${topic} was deleted`
    : `score topic ${topic} was deleted and created again (id ${id}; this shard was built from ${expected})`;
}
