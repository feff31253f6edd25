/**
 * Everything the bench starts (servers, processes, tables, temporary directories) is
 * registered here with how to undo it. Undo runs last-in first-out: once per entry, when
 * its owner releases it, or for whatever is left at the end of the run, on an error, and
 * on Ctrl-C / SIGTERM.
 */

export interface CleanupEntry {
  readonly name: string;
  /** Undoes it now (at most once) and forgets it. */
  release(): Promise<void>;
}

export class CleanupStack {
  private readonly entries: Array<{ name: string; undo: () => Promise<void> }> = [];

  constructor(private readonly onError: (name: string, err: unknown) => void) {}

  /** Registers `undo` for `name`; `release` of the returned entry runs it early. */
  push(name: string, undo: () => Promise<void>): CleanupEntry {
    const entry = { name, undo };
    this.entries.push(entry);
    return {
      name,
      release: async () => {
        const i = this.entries.indexOf(entry);
        if (i < 0) return;
        this.entries.splice(i, 1);
        await this.run(entry);
      },
    };
  }

  /** Undoes everything still registered, newest first; never throws. */
  async releaseAll(): Promise<void> {
    while (this.entries.length) await this.run(this.entries.pop()!);
  }

  get size(): number {
    return this.entries.length;
  }

  private async run(entry: { name: string; undo: () => Promise<void> }): Promise<void> {
    try {
      await entry.undo();
    } catch (err) {
      this.onError(entry.name, err);
    }
  }
}
