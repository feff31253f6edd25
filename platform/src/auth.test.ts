import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { Authenticator, bearer, MONITOR_RPCS, requireAdmin } from "./auth.js";
import { AdminService } from "@ladder/proto/leaderboard/v1/admin_pb";
import type { CallContext } from "./grpc-adapter.js";
import { Code } from "@ladder/model/errors";

const grants = [
  { name: "game-server", token: "w-secret", roles: ["write"] as const },
  { name: "ops", token: "a-secret", roles: ["admin"] as const },
  { name: "dashboard", token: "r-secret", roles: ["read"] as const },
  { name: "gateway", token: "m-secret", roles: ["monitor"] as const },
];
const md = (token?: string) => (token ? bearer(new Metadata(), token) : new Metadata());
const code = (fn: () => unknown) => {
  try {
    fn();
    return "ok";
  } catch (e) {
    return (e as { code: number }).code;
  }
};

describe("platform > auth", () => {
  it("lets a token act only in its roles", () => {
    const auth = new Authenticator(grants, true);
    expect(auth.require(md("w-secret"), "write").name).toBe("game-server");
    expect(code(() => auth.require(md("w-secret"), "admin"))).toBe(Code.PERMISSION_DENIED);
    expect(code(() => auth.require(md("r-secret"), "write"))).toBe(Code.PERMISSION_DENIED);
    expect(auth.require(md("a-secret"), "admin").name).toBe("ops");
  });

  it("refuses missing and unknown tokens with UNAUTHENTICATED", () => {
    const auth = new Authenticator(grants, true);
    expect(code(() => auth.require(md(), "write"))).toBe(Code.UNAUTHENTICATED);
    expect(code(() => auth.require(md("w-secre"), "write"))).toBe(Code.UNAUTHENTICATED);
    const m = new Metadata();
    m.set("authorization", "Basic dXNlcjpwYXNz");
    expect(code(() => auth.require(m, "write"))).toBe(Code.UNAUTHENTICATED);
  });

  it("keeps reads open unless configured otherwise", () => {
    expect(code(() => new Authenticator(grants, true).require(md(), "read"))).toBe("ok");
    const closed = new Authenticator(grants, false);
    expect(code(() => closed.require(md(), "read"))).toBe(Code.UNAUTHENTICATED);
    expect(code(() => closed.require(md("r-secret"), "read"))).toBe("ok");
    expect(code(() => closed.require(md("w-secret"), "read"))).toBe("ok");
  });

  it("lets a monitor token call exactly ListBoards and GetClusterStatus of AdminService; an admin token all", () => {
    const guard = requireAdmin(new Authenticator(grants, false));
    const allowed = (token: string) =>
      AdminService.methods.filter((m) => code(() => guard(m, { metadata: md(token) } as CallContext)) === "ok").map((m) => m.name);
    expect(allowed("m-secret").sort()).toEqual(["GetClusterStatus", "ListBoards"]);
    expect([...MONITOR_RPCS].sort()).toEqual(["GetClusterStatus", "ListBoards"]);
    expect(allowed("a-secret")).toEqual(AdminService.methods.map((m) => m.name));
    expect(allowed("r-secret")).toEqual([]);
    expect(allowed("w-secret")).toEqual([]);
    const reshard = AdminService.methods.find((m) => m.name === "Reshard")!;
    expect(code(() => guard(reshard, { metadata: md("m-secret") } as CallContext))).toBe(Code.PERMISSION_DENIED);
    expect(code(() => new Authenticator(grants, true).require(md("m-secret"), "write"))).toBe(Code.PERMISSION_DENIED);
  });
});
