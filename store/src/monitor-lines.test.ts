import { describe, expect, it } from "vitest";
import { monitorArgs } from "./monitor-lines.js";

describe("monitorArgs", () => {
  it("reads the quoted command and arguments of a MONITOR line, escapes included", () => {
    expect(monitorArgs('+1796500725.733184 [0 127.0.0.1:58712] "hello" "3"')).toEqual(["hello", "3"]);
    // a byte that is not UTF-8 on its own reads as U+FFFD, as Buffer's decoder makes it
    expect(monitorArgs('+1.5 [0 lua] "ZADD" "k \\"q\\"" "1" "a\\\\b\\r\\n\\x00\\xff"')).toEqual([
      "ZADD",
      'k "q"',
      "1",
      "a\\b\r\n\x00\ufffd",
    ]);
    expect(monitorArgs('+1.5 [0 127.0.0.1:1] "ECHO" "\\xc3\\xa9"')).toEqual(["ECHO", "é"]); // UTF-8 bytes, escaped
    expect(monitorArgs("+OK")).toEqual([]);
  });
});
