/**
 * Sessions: read your writes. A session is a view of a LadderClient with the same calls. Each
 * answer that carries a `consistency_token` (SubmitScores, DeletePlayer, DeleteBoard: acknowledged
 * writes) is merged into the session's token (consistency.ts: the largest offset per partition,
 * so the token covers every write of the session, whatever order they were answered in); each
 * request that has a `consistency_token` field (every LeaderboardService read but ListPeriods) is
 * sent with it, merged with the request's own token when it has one. Such a read waits until the
 * shards have applied every write of the session (bounded by the router: UNAVAILABLE if they have
 * not, which the client retries within the call's deadline). A read without the field (ListPeriods, the admin reads) reads as without a
 * session. Which fields are tokens is read from the descriptors, so rpcs that gain the field take
 * part with no change here.
 *
 * A session holds no connection: make one per player flow, request or game, as many as wanted.
 * A write that failed adds nothing (it may have landed: a read need not see it).
 */
import type { DescMethod } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import { IngestService } from "@ladder/proto/leaderboard/v1/ingest_pb";
import { LeaderboardService } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { mergeConsistencyTokens, TokenMerger } from "./consistency.js";
import type { CallOptions, CallsOf, ServiceCalls, ServiceSet } from "./calls.js";

type Fields = DescMethod["input"]["fields"];
const tokenField = (fields: Fields) => fields.find((f) => f.name === "consistency_token")?.localName;

export class Session implements ServiceSet {
  readonly ingest: CallsOf<typeof IngestService>;
  readonly leaderboard: CallsOf<typeof LeaderboardService>;
  readonly admin: CallsOf<typeof AdminService>;
  private readonly tokens = new TokenMerger();

  constructor(client: ServiceSet) {
    this.ingest = this.wrap(IngestService, client.ingest);
    this.leaderboard = this.wrap(LeaderboardService, client.leaderboard);
    this.admin = this.wrap(AdminService, client.admin);
  }

  /** What the session's reads wait for: every acknowledged write of the session ("" before the first). */
  get consistencyToken(): string {
    return this.tokens.token;
  }

  /** Makes the session's reads wait for a write made elsewhere too (its answer's consistency_token). */
  observe(token: string): void {
    this.tokens.observe(token);
  }

  /** The token a read sends: the session's, merged with the request's own. */
  private tokenFor(own: string): string {
    return own === "" ? this.tokens.token : mergeConsistencyTokens(this.tokens.token, own);
  }

  private wrap<S extends GenServiceMethods>(service: GenService<S>, calls: ServiceCalls<S>): ServiceCalls<S> {
    const out: Record<string, unknown> = {};
    for (const m of service.methods) {
      const call = (
        calls as unknown as Record<string, (req: Record<string, unknown>, o?: CallOptions) => Promise<Record<string, unknown>>>
      )[m.localName]!;
      const tokenIn = tokenField(m.input.fields);
      const tokenOut = tokenField(m.output.fields);
      out[m.localName] =
        m.methodKind !== "unary" || (tokenIn === undefined && tokenOut === undefined)
          ? call
          : async (req: Record<string, unknown>, o?: CallOptions) => {
              const sent = tokenIn === undefined ? req : { ...req, [tokenIn]: this.tokenFor(String(req[tokenIn] ?? "")) };
              const res = await call(sent, o);
              if (tokenOut !== undefined) this.tokens.observe(String(res[tokenOut] ?? ""));
              return res;
            };
    }
    return out as ServiceCalls<S>;
  }
}
