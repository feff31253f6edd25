/**
 * @ladder/client: the cluster's API for game servers and tools (README.md of this folder).
 */
export { LadderClient, DEFAULT_CHANNEL_OPTIONS, DEFAULT_TIMEOUT_MS, type LadderClientOptions, type TlsOption } from "./ladder-client.js";
export type { CallOptions, CallsOf, ServiceCalls, ServiceSet, StreamOptions } from "./calls.js";
export { Session } from "./session.js";
export { ServerStream, resumeByToken, type Resume } from "./server-stream.js";
export { DEFAULT_RETRY, NO_RETRY, backoffMs, retryPolicy, type RetryPolicy } from "./backoff.js";
export { RETRIED_CODES, codeOf, mayRetry, retryAfterMs, retrySafety, type RetryEvent, type RetrySafety } from "./retry.js";
export { assignEventIds, everyUpdateHasEventId } from "./event-ids.js";
export { TokenMerger, decodeConsistencyToken, encodeConsistencyToken, mergeConsistencyTokens } from "./consistency.js";
export { TlsFileError } from "./tls-file.js";
export { status } from "@grpc/grpc-js";
