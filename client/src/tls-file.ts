/**
 * Reading a TLS file that the client's options name (`tls.caFile`). A file that is missing or
 * unreadable fails when the client is made, with the option and the path in the message
 * ("LadderClient: options.tls.caFile: cannot read ca.pem (no such file)"), rather than as a bare
 * `ENOENT: no such file or directory, open 'ca.pem'` from deep inside the constructor.
 */
import { readFileSync } from "node:fs";

const REASONS: Readonly<Record<string, string>> = Object.freeze({
  ENOENT: "no such file",
  EACCES: "permission denied",
  EISDIR: "a directory, not a file",
  ENOTDIR: "a part of the path is not a directory",
});

/** A TLS file named by an option could not be read: `option` ("tls.caFile"), `path`, and the system's `code` ("ENOENT"). */
export class TlsFileError extends Error {
  override readonly name = "TlsFileError";

  constructor(
    readonly option: string,
    readonly path: string,
    readonly code: string | undefined,
    cause: unknown,
  ) {
    super(`LadderClient: options.${option}: cannot read ${path} (${(code && REASONS[code]) ?? (cause as Error).message})`, { cause });
  }
}

/** The bytes of the file at `path`, named by `option`; throws a TlsFileError when it cannot be read. */
export function readTlsFile(option: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new TlsFileError(option, path, (err as NodeJS.ErrnoException).code, err);
  }
}
