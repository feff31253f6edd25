/**
 * The configuration tables of docs/configuration.md, generated from the configuration schemas: the
 * services' variables (servicesEnv, platform/src/config.ts) and the local launcher's (localEnv,
 * deploy/local/src/local-config.ts). Each table sits between two marker comments,
 * `<!-- config-table:<name>:start -->` and `<!-- config-table:<name>:end -->`; the prose around
 * them is written by hand.
 *
 *   node --import tsx scripts/config-table.ts           prints the tables
 *   node --import tsx scripts/config-table.ts --write   rewrites them in docs/configuration.md (npm run config-table)
 *   node --import tsx scripts/config-table.ts --check   fails when docs/configuration.md's tables are stale
 *
 * config-table.test.ts fails the unit tests when the file's tables differ from the schemas.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { servicesEnv } from "@ladder/platform/config";
import { envTable } from "@ladder/platform/env-schema";
import { localEnv } from "@ladder/deploy/local-config";

/** The file that holds the tables. */
export const CONFIG_DOC = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "configuration.md");
const NAME = "docs/configuration.md";

/** The generated tables, by marker name. */
export function configTables(): Record<string, string> {
  return { services: envTable(servicesEnv), launcher: envTable(localEnv) };
}

/** `doc` with every table replaced by its generated text; throws when a marker pair is missing. */
export function withConfigTables(doc: string, tables: Record<string, string> = configTables()): string {
  let out = doc;
  for (const [name, table] of Object.entries(tables)) {
    const start = `<!-- config-table:${name}:start -->`;
    const end = `<!-- config-table:${name}:end -->`;
    const from = out.indexOf(start);
    const to = out.indexOf(end, from);
    if (from < 0 || to < 0) throw new Error(`${NAME}: no "${start}" ... "${end}" section`);
    out = `${out.slice(0, from + start.length)}\n${table}\n${out.slice(to)}`;
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  const doc = readFileSync(CONFIG_DOC, "utf8");
  if (mode === "--write") {
    const next = withConfigTables(doc);
    if (next !== doc) writeFileSync(CONFIG_DOC, next);
    console.log(next === doc ? `config-table: ${NAME} is up to date` : `config-table: ${NAME} rewritten`);
  } else if (mode === "--check") {
    if (withConfigTables(doc) !== doc) {
      console.error(`config-table: ${NAME}'s configuration tables differ from the schemas; run npm run config-table`);
      process.exit(1);
    }
    console.log(`config-table: ${NAME} is up to date`);
  } else if (mode === undefined) {
    for (const [name, table] of Object.entries(configTables())) console.log(`${name}:\n${table}\n`);
  } else {
    console.error("usage: node --import tsx scripts/config-table.ts [--write | --check]");
    process.exit(2);
  }
}
