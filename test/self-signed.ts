// A self-signed certificate for tests of TLS on loopback: made by openssl, valid a day, for
// localhost and 127.0.0.1, its key unencrypted. Clients trust the certificate itself as the CA.
import { execFileSync } from "node:child_process";

/** Writes a certificate to `cert` and its key to `key` (PEM). */
export function makeSelfSignedCert(cert: string, key: string): void {
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"].concat([
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      key,
      "-out",
      cert,
    ]),
    { stdio: "pipe" },
  );
}
