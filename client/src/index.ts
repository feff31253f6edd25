/**
 * @ladder/client: the cluster's API for game servers and tools (README.md of this folder).
 */
export { LadderClient, DEFAULT_CHANNEL_OPTIONS, DEFAULT_TIMEOUT_MS, type CallOptions, type CallsOf, type LadderClientOptions, type ServiceCalls, type StreamOptions, type TlsOption } from "./ladder-client.js";
export { Session } from "./session.js";
export { ServerStream, resumeByToken, type Resume } from "./server-stream.js";
export { DEFAULT_RETRY, NO_RETRY, backoffMs, retryPolicy, type RetryPolicy } from "./backoff.js";
export { RETRIED_CODES, codeOf, mayRetry, retrySafety, type RetryEvent, type RetrySafety } from "./retry.js";
export { assignEventIds, everyUpdateHasEventId } from "./event-ids.js";
export { TokenMerger, decodeConsistencyToken, encodeConsistencyToken, mergeConsistencyTokens } from "./consistency.js";
export { status } from "@grpc/grpc-js";
