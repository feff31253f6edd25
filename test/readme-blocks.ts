// The README's Quick start and tour as data, for readme-tour.int.test.ts: the fenced blocks of its
// "Quick start" and "A five-minute tour" sections, each shell block's command lines (a trailing
// comment, two spaces and `# `, taken off), and what a comment shows of the output where it shows
// some ("404 with {...}": the body's text before its "..."). Pure: the text in, the blocks out;
// a README whose sections lost a block fails here, naming what is missing.

export interface TourBlock {
  /** The command lines, in order, as the README writes them (their comments taken off). */
  readonly commands: readonly string[];
  /** Command line → the output its comment shows (e.g. the start of a JSON body). */
  readonly shown?: ReadonlyMap<string, string>;
}

export interface ReadmeTour {
  /** The Quick start's block that runs the cluster in the background. */
  readonly background: TourBlock;
  /** The tour's CLI commands. */
  readonly cli: TourBlock & { readonly shown: ReadonlyMap<string, string> };
  /** The tour's curl calls. */
  readonly curl: TourBlock & { readonly shown: ReadonlyMap<string, string> };
  /** The client library example: its code, the file name the README saves it as, and the line that runs it. */
  readonly client: { readonly code: string; readonly file: string; readonly run: string };
}

interface Fence {
  readonly lang: string;
  readonly body: string;
  /** The paragraph just before the fence. */
  readonly before: string;
}

/** The markdown text of the `## title` section (up to the next `## `), or throws naming it. */
export function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const end = markdown.indexOf("\n## ", start + 4);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of `markdown`, in order. */
export function fences(markdown: string): Fence[] {
  const found: Fence[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    const paragraphs = markdown.slice(0, m.index).trimEnd().split("\n\n");
    found.push({ lang: m[1]!, body: m[2]!, before: paragraphs.at(-1) ?? "" });
  }
  return found;
}

/** A shell block's command lines and the outputs their comments show. */
export function shellBlock(body: string): { commands: string[]; shown: Map<string, string> } {
  const commands: string[] = [];
  const shown = new Map<string, string>();
  for (const raw of body.split("\n")) {
    if (raw.trim() === "" || raw.trimStart().startsWith("#")) continue;
    const m = /^(.*?)\s{2,}# (.*)$/.exec(raw);
    const command = (m ? m[1]! : raw).trim();
    commands.push(command);
    const output = m && /^\d{3} with (.*)$/.exec(m[2]!)?.[1];
    if (output) shown.set(command, output.replace(/,?\.\.\.\}*$/, ""));
  }
  return { commands, shown };
}

/** The Quick start's background block and the tour's blocks; throws naming a block that is missing. */
export function readmeTour(markdown: string): ReadmeTour {
  const quick = fences(section(markdown, "Quick start")).filter((f) => f.lang === "sh");
  const background = quick.find((f) => f.body.includes("--background"));
  if (!background) throw new Error("README.md's Quick start has no shell block with `npm start -- --background`");
  const blocks = fences(section(markdown, "A five-minute tour"));
  const shells = blocks.filter((f) => f.lang === "sh");
  const cli = shells.find((f) => f.body.includes("npm run -s cli --"));
  const curl = shells.find((f) => f.body.startsWith("curl "));
  const code = blocks.find((f) => f.lang === "ts");
  const run = code && blocks[blocks.indexOf(code) + 1];
  const file = run && /`([\w-]+\.ts)`/.exec(run.before)?.[1];
  if (!cli || !curl || !code || !run || run.lang !== "sh" || !file)
    throw new Error(
      "README.md's tour lacks a CLI block, a curl block, or a ts example followed by the sh line that runs it (naming its `file.ts`)",
    );
  return {
    background: shellBlock(background.body),
    cli: shellBlock(cli.body),
    curl: shellBlock(curl.body),
    client: { code: code.body, file, run: shellBlock(run.body).commands.join("\n") },
  };
}
