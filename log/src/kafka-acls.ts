/**
 * Who may do what on the log: the ACLs of a secured broker (StandardAuthorizer, no ACL = no
 * access), as plain data built from the score topic's name, and the one call that creates them.
 * Each role is a Kafka user (SASL/SCRAM-SHA-512); the broker's own user is the only super user.
 * S is the score topic (LADDER_SCORE_TOPIC); a group pattern is a prefix, every other name literal.
 *
 *   principal       resource                                    operations
 *   ingest          topic S                                     WRITE, DESCRIBE, DESCRIBE_CONFIGS
 *                   topic S.boards, S.placement                 READ, DESCRIBE
 *                   group S.boards.follower.*, S.placement.follower.*   READ, DESCRIBE, DELETE
 *   shard           topic S                                     CREATE, READ, DESCRIBE, DESCRIBE_CONFIGS
 *                   topic S.snapshots                           CREATE, WRITE, READ, DESCRIBE, DESCRIBE_CONFIGS
 *                   topic S.placement                           CREATE, WRITE (epoch 1 when empty), READ, DESCRIBE
 *                   group S.shard.*, S.snapshots.reader.*, S.placement.follower.*   READ, DESCRIBE, DELETE
 *   router          topic S                                     READ, DESCRIBE, DESCRIBE_CONFIGS (rebuilds, log ends, status)
 *                   topic S.closes                              CREATE, READ, DESCRIBE (period closes, followed)
 *                   topic S.snapshots                           READ, DESCRIBE, DESCRIBE_CONFIGS (rebuilds)
 *                   topic S.boards, S.placement                 CREATE, READ, DESCRIBE
 *                   group S.rebuild.*, S.deriver.*, S.snapshots.reader.*, S.boards.follower.*,
 *                         S.placement.follower.*, S.closes.follower.*   READ, DESCRIBE, DELETE (S.deriver.*: the
 *                         team derivers' group, router/src/control/team-deriver.ts)
 *   router-control  topic S                                     WRITE, DESCRIBE (a deleted board's markers, close markers)
 *                   topic S.closes                              WRITE, DESCRIBE (close events)
 *                   transactional id S.closer                   WRITE, DESCRIBE (the closers' one id)
 *                   topic S.boards, S.placement                 WRITE, DESCRIBE (definitions, placements)
 *
 * So only ingest and the router's control plane can append to the score topic; the router's read
 * path, the shard nodes and anyone without a login cannot. The idempotent producers need no
 * IDEMPOTENT_WRITE on the cluster: WRITE on a topic implies it (KIP-679).
 */
import kafkajs, { type AclEntry } from "kafkajs";
import type { LogClient } from "./log-client.js";

// Enums are runtime objects of kafkajs's CommonJS export: taken from its default export.
const { AclOperationTypes: Op, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;

/** The Kafka users of the cluster's roles. */
export const KAFKA_ROLE_USERS = ["ingest", "shard", "router", "router-control"] as const;
export type KafkaRoleUser = (typeof KAFKA_ROLE_USERS)[number];

type Operation = "READ" | "WRITE" | "CREATE" | "DELETE" | "DESCRIBE" | "DESCRIBE_CONFIGS";

export interface AclGrant {
  user: KafkaRoleUser;
  resource: "topic" | "group" | "transactional-id";
  /** A topic's name, or a group prefix. */
  name: string;
  operations: readonly Operation[];
}

const FOLLOWER = ["READ", "DESCRIBE", "DELETE"] as const;

/** Every grant of the table above for score topic `s`. */
export function aclGrants(s: string): AclGrant[] {
  const topic = (user: KafkaRoleUser, name: string, operations: readonly Operation[]): AclGrant => ({
    user,
    resource: "topic",
    name,
    operations,
  });
  const groups = (user: KafkaRoleUser, prefixes: string[]): AclGrant[] =>
    prefixes.map((name) => ({ user, resource: "group", name, operations: FOLLOWER }));
  const [boards, placement, snapshots, closes] = [`${s}.boards`, `${s}.placement`, `${s}.snapshots`, `${s}.closes`];
  return [
    topic("ingest", s, ["WRITE", "DESCRIBE", "DESCRIBE_CONFIGS"]),
    topic("ingest", boards, ["READ", "DESCRIBE"]),
    topic("ingest", placement, ["READ", "DESCRIBE"]),
    ...groups("ingest", [`${boards}.follower.`, `${placement}.follower.`]),
    topic("shard", s, ["CREATE", "READ", "DESCRIBE", "DESCRIBE_CONFIGS"]),
    topic("shard", snapshots, ["CREATE", "WRITE", "READ", "DESCRIBE", "DESCRIBE_CONFIGS"]),
    topic("shard", placement, ["CREATE", "WRITE", "READ", "DESCRIBE"]),
    ...groups("shard", [`${s}.shard.`, `${snapshots}.reader.`, `${placement}.follower.`]),
    topic("router", s, ["READ", "DESCRIBE", "DESCRIBE_CONFIGS"]),
    topic("router", snapshots, ["READ", "DESCRIBE", "DESCRIBE_CONFIGS"]),
    topic("router", boards, ["CREATE", "READ", "DESCRIBE"]),
    topic("router", placement, ["CREATE", "READ", "DESCRIBE"]),
    topic("router", closes, ["CREATE", "READ", "DESCRIBE"]),
    ...groups("router", [
      `${s}.rebuild.`,
      `${s}.deriver.`,
      `${snapshots}.reader.`,
      `${boards}.follower.`,
      `${placement}.follower.`,
      `${closes}.follower.`,
    ]),
    topic("router-control", s, ["WRITE", "DESCRIBE"]),
    topic("router-control", boards, ["WRITE", "DESCRIBE"]),
    topic("router-control", placement, ["WRITE", "DESCRIBE"]),
    topic("router-control", closes, ["WRITE", "DESCRIBE"]),
    { user: "router-control", resource: "transactional-id", name: `${s}.closer`, operations: ["WRITE", "DESCRIBE"] },
  ];
}

/** The grants as kafkajs ACL entries (ALLOW, any host). */
export function aclEntries(grants: readonly AclGrant[]): AclEntry[] {
  return grants.flatMap((g) =>
    g.operations.map((op) => ({
      principal: `User:${g.user}`,
      host: "*",
      resourceType:
        g.resource === "topic"
          ? AclResourceTypes.TOPIC
          : g.resource === "group"
            ? AclResourceTypes.GROUP
            : AclResourceTypes.TRANSACTIONAL_ID,
      resourceName: g.name,
      resourcePatternType: g.resource === "group" ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
      operation: Op[op],
      permissionType: AclPermissionTypes.ALLOW,
    })),
  );
}

/** Creates the ACLs of score topic `s` through `client` (a super user's login); an ACL that exists is left as it is. Returns how many. */
export async function createRoleAcls(client: LogClient, s: string): Promise<number> {
  const acl = aclEntries(aclGrants(s));
  await client.admin.createAcls({ acl });
  return acl.length;
}
