/**
 * The CLI's errors, and the one function that turns anything a command throws into what the user
 * reads: one line after `ladder: `, and an exit status. 2: the command line is wrong (UsageError);
 * 1: the cluster refused or could not be reached; 130: a rebuild cancelled with Ctrl-C
 * (CommandFailed carries its own status). No stack for any of these: a stack is printed only for
 * what can only be a bug of the CLI (a TypeError, say).
 *
 * gRPC failures name the service and its address: a refused connection says to start the
 * cluster, UNAUTHENTICATED says where the token came from, anything else gives the status name
 * and the server's message. This file imports nothing from gRPC (the status names are the
 * standard table), so usage errors answer without loading it.
 */

/** The command line is wrong: the message names the flag or command and the rule (exit status 2). */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A command that failed with its own message and exit status (a cancelled rebuild: 130). */
export class CommandFailed extends Error {
  override readonly name = "CommandFailed";

  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** What the CLI knows of where a call went, for the messages. */
export interface ErrorContext {
  /** The service the command calls. */
  readonly service: "router" | "ingest";
  /** The addresses it was given, by service. */
  readonly addresses: Readonly<Record<"router" | "ingest", string>>;
  /** Where the token came from ("--token", "LADDER_TOKEN", or the credentials file's path), or undefined when none was sent. */
  readonly tokenSource: string | undefined;
  /** The credentials file looked at when neither --token nor LADDER_TOKEN gave one. */
  readonly credentialsFile: string;
}

/** The standard gRPC status codes' names, by number. */
const STATUS_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;

/** Socket errors grpc-js reports in an UNAVAILABLE's details, and what they mean. */
const UNREACHABLE: readonly (readonly [RegExp, string])[] = [
  [/ECONNREFUSED/, "connection refused"],
  [/ENOTFOUND|EAI_AGAIN|Name resolution failed/, "no such host"],
  [/ETIMEDOUT/, "connection timed out"],
  [/EHOSTUNREACH|ENETUNREACH/, "host unreachable"],
  [/ECONNRESET/, "connection reset"],
];

interface GrpcError {
  code: number;
  details: string;
}
const isGrpcError = (e: unknown): e is GrpcError =>
  typeof (e as GrpcError)?.code === "number" && typeof (e as GrpcError)?.details === "string";

/** What the user reads (without the "ladder: " prefix) and the exit status. */
export function describeError(err: unknown, ctx?: ErrorContext): { line: string; exitCode: number } {
  if (err instanceof UsageError) return { line: err.message, exitCode: 2 };
  if (err instanceof CommandFailed) return { line: err.message, exitCode: err.exitCode };
  if (isGrpcError(err) && ctx) return { line: grpcLine(err, ctx), exitCode: 1 };
  const e = err as Error & { option?: string; path?: string };
  if (e?.name === "TlsFileError" && e.option === "tls.caFile")
    return { line: e.message.replace("LadderClient: options.tls.caFile", "LADDER_TLS_CA_FILE"), exitCode: 1 };
  if (e instanceof TypeError || e instanceof ReferenceError || e instanceof SyntaxError)
    return { line: `internal error: ${e.stack}`, exitCode: 1 };
  return { line: e instanceof Error ? e.message : String(err), exitCode: 1 };
}

function grpcLine(err: GrpcError, ctx: ErrorContext): string {
  const name = STATUS_NAMES[err.code] ?? `status ${err.code}`;
  const service = serviceOf(err.details, ctx);
  const at = `the ${service} at ${ctx.addresses[service]}`;
  if (name === "UNAVAILABLE") {
    const reason = UNREACHABLE.find(([re]) => re.test(err.details))?.[1];
    if (reason === "connection refused") return `cannot reach ${at} (connection refused): is the cluster running? Start it with npm start`;
    if (reason) return `cannot reach ${at} (${reason}): check --${service} (or LADDER_${service.toUpperCase()}_LISTEN)`;
  }
  if (name === "DEADLINE_EXCEEDED") return `DEADLINE_EXCEEDED: no answer from ${at} in time`;
  if (name === "UNAUTHENTICATED") {
    const sent = ctx.tokenSource
      ? `it sent the token from ${ctx.tokenSource}`
      : `it sent none (no --token, no LADDER_TOKEN, and ${ctx.credentialsFile} has no admin token or is not there)`;
    return `UNAUTHENTICATED from ${at}: ${err.details}; the token comes from --token, else LADDER_TOKEN, else the admin token of ${ctx.credentialsFile} (--credentials or LADDER_CREDENTIALS_FILE name another file): ${sent}`;
  }
  return `${name} from ${at}: ${err.details}`;
}

/** The service an error came from: the one whose address its details name, else the command's. */
function serviceOf(details: string, ctx: ErrorContext): "router" | "ingest" {
  for (const s of ["router", "ingest"] as const) if (details.includes(ctx.addresses[s])) return s;
  return ctx.service;
}
