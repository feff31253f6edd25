/**
 * Query parameters of the JSON endpoints, checked before anything is asked of the router: each
 * endpoint names the parameters it takes, and a parameter it does not take, given twice, or not
 * of its kind is refused with INVALID_ARGUMENT naming it (400). Ranges the router checks (limit ≤
 * 1,000, radius ≤ 100, ...) are left to it: one rule, one place. `access_token` is every
 * endpoint's (caller.ts).
 *
 * The query is read from its raw text first (queryOf): a name or value that is not valid
 * percent-encoded UTF-8 (`player=%ff%fe`) is refused naming the parameter, where URLSearchParams
 * would have turned it into U+FFFD and looked that up. A player id is held to the model's policy
 * (playerIdProblem: no invisible or format characters, no surrounding whitespace) here too, so
 * that a bad one is refused before the router is asked, in the same words.
 */
import { Code } from "@ladder/model/errors";
import { playerIdProblem } from "@ladder/model/validate";
import { RankMode } from "@ladder/proto/leaderboard/v1/leaderboard_pb";
import { refuse } from "./http-errors.js";

const UINT32_MAX = 2 ** 32 - 1;
const COMMON = ["access_token"];

export class Params {
  constructor(
    private readonly search: URLSearchParams,
    takes: readonly string[],
  ) {
    const known = new Set([...takes, ...COMMON]);
    for (const name of new Set(search.keys())) {
      if (!known.has(name)) throw invalid(`unknown parameter "${name}" (this endpoint takes ${takes.length ? takes.join(", ") : "none"})`);
      if (search.getAll(name).length > 1) throw invalid(`parameter "${name}" given twice`);
    }
  }

  /** The parameter's text; "" when absent. */
  text(name: string): string {
    return this.search.get(name) ?? "";
  }

  /** The parameter's text; INVALID_ARGUMENT when absent or empty. */
  required(name: string): string {
    const v = this.text(name);
    if (v === "") throw invalid(`parameter "${name}" is required`);
    return v;
  }

  /** A player id (the model's policy); INVALID_ARGUMENT naming the parameter when absent or refused. */
  player(name: string): string {
    const v = this.required(name);
    const problem = playerIdProblem(v);
    if (problem) throw invalid(`parameter "${name}": ${problem}`);
    return v;
  }

  /** An unsigned 32-bit integer; 0 when absent. */
  uint32(name: string): number {
    return Number(this.uint(name, BigInt(UINT32_MAX)));
  }

  /** An unsigned 64-bit integer; 0 when absent. */
  uint64(name: string): bigint {
    return this.uint(name, 2n ** 64n - 1n);
  }

  /** rank_mode: competition or dense; unspecified when absent. */
  rankMode(): RankMode {
    const v = this.text("rank_mode");
    if (v === "") return RankMode.UNSPECIFIED;
    if (v === "competition") return RankMode.COMPETITION;
    if (v === "dense") return RankMode.DENSE;
    throw invalid(`parameter "rank_mode": "${v}" is not competition or dense`);
  }

  private uint(name: string, max: bigint): bigint {
    const v = this.text(name);
    if (v === "") return 0n;
    if (!/^\d{1,20}$/.test(v) || BigInt(v) > max) throw invalid(`parameter "${name}": "${v}" is not an integer from 0 to ${max}`);
    return BigInt(v);
  }
}

/**
 * The query parameters of `url`: INVALID_ARGUMENT naming the parameter whose name or value is not
 * valid percent-encoded UTF-8 (a malformed %-escape, or escapes of bytes that are no UTF-8).
 */
export function queryOf(url: URL): URLSearchParams {
  for (const pair of url.search.slice(1).split("&")) {
    const eq = pair.indexOf("=");
    const [name, value] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const nameText = percentDecoded(name);
    if (nameText === undefined) throw invalid(`a parameter's name ("${name.slice(0, 64)}") is not valid percent-encoded UTF-8`);
    if (percentDecoded(value) === undefined) throw invalid(`parameter "${nameText}" is not valid percent-encoded UTF-8`);
  }
  return url.searchParams;
}

/** Form-encoded text decoded; undefined when it is not valid percent-encoded UTF-8. */
function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return undefined;
  }
}

/** A board reference of `standing`'s `boards`: board[@period][~window], as the CLI writes it. */
export function boardRef(ref: string): { board: string; period: string; window: string } {
  const m = /^([^@~]+)(?:@([^~]+))?(?:~(.+))?$/.exec(ref);
  if (!m) throw invalid(`parameter "boards": "${ref}" is not board[@period][~window]`);
  return { board: m[1]!, period: m[2] ?? "", window: m[3] ?? "" };
}

const invalid = (message: string) => refuse(Code.INVALID_ARGUMENT, message);
