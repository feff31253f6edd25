/**
 * `reshard --add shard-3=redis://host:port[,...] --remove shard-1[,...]`: AdminService.Reshard,
 * printing the plan (slots that move), each changed shard's build, and the cut-over.
 * `placement`: AdminService.GetPlacement, the epoch, shards and slots the router reads by.
 */
import { ReshardResponse_Phase as Phase } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { ServiceSet } from "@ladder/client";
import type { Values } from "./flags.js";
import type { RESHARD } from "./tables/admin.js";

export async function reshard(c: ServiceSet, o: Values<typeof RESHARD.flags>): Promise<string> {
  const add = (o.add ?? []).map((item) => {
    const eq = item.indexOf("="); // the table's pattern: id=redis://host:port
    return { id: item.slice(0, eq), redisUrl: item.slice(eq + 1) };
  });
  const remove = o.remove ?? [];
  let summary = "";
  for await (const m of c.admin.reshard({ add, remove })) {
    if (m.phase === Phase.PLANNED) {
      const moves = m.movedSlots.map((s) => `${s.slot}:${s.fromShard}->${s.toShard}`).join(" ");
      console.log(`placement epoch ${m.fromEpoch} -> ${m.toEpoch}: ${m.movedSlots.length} slots move (${moves})`);
    } else if (m.phase === Phase.BUILDING) {
      console.log(
        `${m.shardId}: building its new slots  ${m.playersSeeded > 0n ? `${m.playersSeeded} players seeded from ${m.seededFrom.join(", ")}  ` : ""}${m.eventsReplayed} records  ${Math.round(m.eventsPerSecond)}/s  lag ${m.lag}  eta ${(Number(m.etaMs) / 1000).toFixed(1)} s`,
      );
    } else if (m.phase === Phase.CUT_OVER) {
      console.log(`cut over: placement epoch ${m.toEpoch} published ${m.cutOverMs} ms after the first shard's cut-over`);
    } else if (m.phase === Phase.DELETING) {
      console.log(`${m.shardId}: deleting the players it gave away  ${m.playersLeft} left`);
    } else if (m.phase === Phase.DONE) {
      summary = `placement epoch ${m.toEpoch} in force; cut-over (first shard's cut-over to publication) ${m.cutOverMs} ms`;
    }
  }
  return summary;
}

export async function placement(c: ServiceSet): Promise<string> {
  const p = await c.admin.getPlacement({});
  const width = Math.max(...p.shards.map((s) => s.id.length));
  return [
    `placement epoch ${p.epoch}, ${p.numSlots} slots`,
    ...p.shards.map((s) => `  ${s.id.padEnd(width)}  ${s.redisUrl}  ${s.slots.length} slots: ${s.slots.join(",")}`),
  ].join("\n");
}
