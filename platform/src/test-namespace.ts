// A fresh namespace per test: its own score topic and Redis key prefix on the shared infra.
import { randomBytes } from "node:crypto";

export interface Namespace {
  topic: string;
  keyPrefix: string;
}

export function freshNamespace(label: string): Namespace {
  const id = `${label}-${randomBytes(4).toString("hex")}`;
  return { topic: `test.${id}`, keyPrefix: `${id}:` };
}
