import { fromBinary } from "@bufbuild/protobuf";
import { GetRankRequestSchema } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { describe, expect, it } from "vitest";
import { grpcFrame, median, parseH2load } from "./h2load.js";

const REPORT = `finished in 3.00s, 25182.00 req/s, 885.40KB/s
requests: 50364 total, 50364 started, 50364 done, 50364 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 50364 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 1.73MB (1813300) total, 212.45KB (217552) headers (space savings 95.77%), 353.75KB (362240) data
                     min         max         mean         sd        +/- sd
time for request:      122us     26.83ms       311us       509us    97.92%
time for connect:        0us         0us         0us         0us     0.00%
`;

describe("bench > infra > h2load", () => {
  it("frames a request as gRPC does: 0, the length big-endian, the message", () => {
    const f = grpcFrame(GetRankRequestSchema, { board: "b", playerId: "p:1" });
    expect(f[0]).toBe(0);
    const len = Buffer.from(f).readUInt32BE(1);
    expect(len).toBe(f.length - 5);
    expect(fromBinary(GetRankRequestSchema, f.subarray(5))).toMatchObject({ board: "b", playerId: "p:1" });
    expect([...grpcFrame(GetRankRequestSchema, {})]).toEqual([0, 0, 0, 0, 0]);
  });

  it("reads the rate, the requests done and the mean time per request in any unit", () => {
    expect(parseH2load(REPORT)).toEqual({ rate: 25182, done: 50364, meanMs: 0.311 });
    expect(parseH2load(REPORT.replace("311us", "1.52ms")).meanMs).toBe(1.52);
    expect(parseH2load(REPORT.replace("311us", "2.10s")).meanMs).toBe(2100);
  });

  it("refuses a report with failed, errored or non-2xx requests, or without a rate", () => {
    expect(() => parseH2load(REPORT.replace("0 failed", "3 failed"))).toThrow(/failed requests/);
    expect(() => parseH2load(REPORT.replace("0 errored", "1 errored"))).toThrow(/failed requests/);
    expect(() => parseH2load(REPORT.replace("0 4xx", "2 4xx"))).toThrow(/failed requests/);
    expect(() => parseH2load("connect failed")).toThrow(/no rate/);
  });

  it("takes the median of odd and even counts", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
