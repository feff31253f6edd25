import { describe, expect, it } from "vitest";
import { CommandFailed, describeError, UsageError, type ErrorContext } from "./errors.js";

const ctx: ErrorContext = {
  service: "router",
  addresses: { router: "127.0.0.1:50051", ingest: "127.0.0.1:50052" },
  tokenSource: ".ladder/credentials.json",
  credentialsFile: ".ladder/credentials.json",
};
/** An error shaped as grpc-js's ServiceError. */
const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

describe("cli > errors", () => {
  it("turns a refused connection into the address and npm start", () => {
    const refused = grpcError(14, "No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:50052. Resolution note: ");
    expect(describeError(refused, ctx)).toEqual({
      line: "cannot reach the ingest at 127.0.0.1:50052 (connection refused): is the cluster running? Start it with npm start",
      exitCode: 1,
    });
    const dns = grpcError(14, "Name resolution failed for target dns:nowhere:50051");
    expect(describeError(dns, ctx).line).toBe(
      "cannot reach the router at 127.0.0.1:50051 (no such host): check --router (or LADDER_ROUTER_LISTEN)",
    );
  });

  it("says where the token comes from on UNAUTHENTICATED", () => {
    const line = describeError(grpcError(16, "invalid bearer token"), ctx).line;
    expect(line).toMatch(/^UNAUTHENTICATED from the router at 127\.0\.0\.1:50051: invalid bearer token; /);
    expect(line).toContain("--token, else LADDER_TOKEN, else the admin token of .ladder/credentials.json");
    expect(line).toContain("it sent the token from .ladder/credentials.json");
    expect(describeError(grpcError(16, "missing bearer token"), { ...ctx, tokenSource: undefined }).line).toContain("it sent none");
  });

  it("gives other gRPC errors their status name and the server's message", () => {
    expect(describeError(grpcError(5, 'board "x" is not defined'), ctx)).toEqual({
      line: 'NOT_FOUND from the router at 127.0.0.1:50051: board "x" is not defined',
      exitCode: 1,
    });
    expect(describeError(grpcError(4, "Deadline exceeded after 10.001s"), ctx).line).toBe(
      "DEADLINE_EXCEEDED: no answer from the router at 127.0.0.1:50051 in time",
    );
    expect(describeError(grpcError(14, "shard-1: not serving reads"), ctx).line).toBe(
      "UNAVAILABLE from the router at 127.0.0.1:50051: shard-1: not serving reads",
    );
  });

  it("keeps the exit status of usage errors (2) and of commands that set their own", () => {
    expect(describeError(new UsageError('--value must be an integer (got "abc")'))).toEqual({
      line: '--value must be an integer (got "abc")',
      exitCode: 2,
    });
    expect(describeError(new CommandFailed("rebuild cancelled", 130), ctx)).toEqual({ line: "rebuild cancelled", exitCode: 130 });
  });

  it("names LADDER_TLS_CA_FILE for a CA file the client cannot read", () => {
    const err = Object.assign(new Error("LadderClient: options.tls.caFile: cannot read ca.pem (no such file)"), {
      name: "TlsFileError",
      option: "tls.caFile",
      path: "ca.pem",
    });
    expect(describeError(err, ctx).line).toBe("LADDER_TLS_CA_FILE: cannot read ca.pem (no such file)");
  });

  it("prints a message without a stack, but a bug's stack", () => {
    expect(describeError(new Error("credentials file x: not a JSON array"), ctx)).toEqual({
      line: "credentials file x: not a JSON array",
      exitCode: 1,
    });
    expect(describeError(new TypeError("x is undefined"), ctx).line).toMatch(/^internal error: TypeError: x is undefined\n\s+at /);
  });
});
