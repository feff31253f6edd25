/**
 * Secrets out of logs and error messages: the user and password of any URL in a text
 * (redis://:password@host, rediss://user:pw@host, ...) are masked. The logger applies it to
 * every line (logger.ts); messages built from configuration (config.ts) apply it too.
 */
const CREDENTIALS_IN_URL = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@]*)@/gi;

/** `text` with the credentials of every URL in it masked: redis://:secret@h:1 → redis://***@h:1. */
export function redactSecrets(text: string): string {
  return text.replace(CREDENTIALS_IN_URL, "$1***@");
}
