/**
 * Secrets out of logs and error messages: the user and password of any URL in a text
 * (redis://:password@host, rediss://user:pw@host, ...) are masked. The logger applies it to
 * every line (logger.ts); messages built from configuration (config.ts) apply it too. A JAAS
 * line's passwords (password="...", the broker's server.properties) are masked the same way.
 */
const CREDENTIALS_IN_URL = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@]*)@/gi;

/** A password in a JAAS configuration or properties text: password="secret", user_ingest="secret". */
const JAAS_PASSWORD = /\b(password|user_[A-Za-z0-9._-]+)="[^"]*"/g;
/** A password in a SCRAM credential argument: SCRAM-SHA-512=[name=ingest,password=secret]. */
const SCRAM_PASSWORD = /\bpassword=[^\],\s"]+/g;

/** `text` with the credentials of every URL in it masked: redis://:secret@h:1 → redis://***@h:1; likewise JAAS passwords. */
export function redactSecrets(text: string): string {
  return text.replace(CREDENTIALS_IN_URL, "$1***@").replace(JAAS_PASSWORD, '$1="***"').replace(SCRAM_PASSWORD, "password=***");
}
