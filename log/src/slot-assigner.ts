/**
 * A kafkajs partition assigner that hands a shard node exactly the partitions of its
 * slots. kafkajs has no manual assignment, so each shard node joins a consumer group of
 * its own ("<topic>.shard.<id>") and this assigner gives every slot to the first member
 * (by member id); further instances of the same shard get nothing and stand by until
 * the group rebalances. Should two ever apply the same partition, the apply script's
 * offset guard still applies each record once.
 */
import { AssignerProtocol, type PartitionAssigner } from "kafkajs";

export function slotAssigner(slots: readonly number[]): PartitionAssigner {
  return () => ({
    name: "LadderSlotAssigner",
    version: 1,
    async assign({ members, topics }) {
      const [leader, ...standby] = members.map((m) => m.memberId).sort();
      const assignment = Object.fromEntries(topics.map((t) => [t, [...slots]]));
      return [
        {
          memberId: leader!,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment, userData: Buffer.alloc(0) }),
        },
        ...standby.map((memberId) => ({
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 1, assignment: {}, userData: Buffer.alloc(0) }),
        })),
      ];
    },
    protocol({ topics }) {
      return {
        name: "LadderSlotAssigner",
        metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }),
      };
    },
  });
}
