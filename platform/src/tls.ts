/**
 * gRPC credentials from configuration: TLS on every port when a certificate is configured,
 * plaintext otherwise (local development and tests).
 */
import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import type { Config } from "./config.js";

export function serverCredentials(config: Pick<Config, "tls">): grpc.ServerCredentials {
  if (!config.tls) return grpc.ServerCredentials.createInsecure();
  const { certFile, keyFile } = config.tls;
  return grpc.ServerCredentials.createSsl(null, [{ cert_chain: readFileSync(certFile), private_key: readFileSync(keyFile) }], false);
}

/** Client credentials: TLS when a CA is configured or the servers use TLS, else plaintext. */
export function clientCredentials(config: Pick<Config, "tls" | "tlsCaFile">): grpc.ChannelCredentials {
  if (config.tlsCaFile) return grpc.credentials.createSsl(readFileSync(config.tlsCaFile));
  if (config.tls) return grpc.credentials.createSsl();
  return grpc.credentials.createInsecure();
}
