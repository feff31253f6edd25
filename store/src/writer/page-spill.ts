/**
 * The pages of a snapshot being read, kept in a file instead of the node's memory.
 *
 * A snapshot reads its shard page by page while the applier goes on, and can only encode its body
 * once the finish says which members changed meanwhile (snapshot.ts). Held in memory, the pages of a
 * shard of 16M players took 1.5–2.3 GB of the node's RSS for the minutes the read and the publish
 * lasted; here they go to one file as they are read and are read back, a page at a time, to be
 * encoded: the node holds one page and the journal of the members changed, not the shard.
 *
 * The file is unlinked as soon as it is opened: it lives as long as its descriptor, so a node that
 * dies mid-snapshot leaves nothing on disk. It takes the body's size (about 50 bytes a player with
 * its dedup entries and counts of records) in the directory given, the system's temporary one by
 * default (TMPDIR). Pages come back from the page cache when the machine has the memory to spare,
 * else from the disk: a read per page to write it, and one more for each page of a key that changed
 * during the read (what it keeps without the changed members is counted before the body's size is
 * written, and dropped again as it is written).
 */
import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where one page is in the spill file, and how many members it holds. */
export interface PageRef {
  at: number;
  length: number;
  members: number;
}

export class PageSpill {
  private size = 0;

  private constructor(private readonly file: FileHandle) {}

  /** A new, empty spill file in `dir`, already unlinked. */
  static async open(dir = tmpdir()): Promise<PageSpill> {
    const home = await mkdtemp(join(dir, "ladder-snapshot-"));
    try {
      const file = await open(join(home, "pages"), "w+");
      return new PageSpill(file);
    } finally {
      await rm(home, { recursive: true, force: true }); // the open descriptor keeps the file
    }
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.size;
  }

  /** Appends a page (a members encoding of `members` members). */
  async append(page: Buffer, members: number): Promise<PageRef> {
    const at = this.size;
    let done = 0;
    while (done < page.length) done += (await this.file.write(page, done, page.length - done, at + done)).bytesWritten;
    this.size += page.length;
    return { at, length: page.length, members };
  }

  /** The page at `ref`, as appended. */
  async read(ref: PageRef): Promise<Buffer> {
    const out = Buffer.allocUnsafe(ref.length);
    let done = 0;
    while (done < ref.length) {
      const { bytesRead } = await this.file.read(out, done, ref.length - done, ref.at + done);
      if (bytesRead === 0) throw new Error(`snapshot spill file ends at ${ref.at + done}, before its page's end (${ref.at + ref.length})`);
      done += bytesRead;
    }
    return out;
  }

  /** Closes the file, which frees its space. */
  async close(): Promise<void> {
    await this.file.close();
  }
}
