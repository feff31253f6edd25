// The local broker's TLS material, made once by openssl under `dir` and reused after:
//
//   ca.pem       the CA's certificate: what clients trust (LADDER_KAFKA_TLS_CA)
//   ca.key       its private key (0600): signs the broker's certificate, nothing else
//   broker.pem   the broker's private key (PKCS#8, 0600) then its certificate (SAN 127.0.0.1,
//                localhost): Kafka's ssl.keystore.type=PEM reads both from one file
//
// Ten years' validity: a local cluster's data dir is thrown away long before. A half-made set (a
// run killed midway) is made again whole.
import { execFile } from "node:child_process";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const DAYS = "3650";

export interface BrokerTls {
  caFile: string;
  keystoreFile: string;
}

export async function ensureBrokerTls(dir: string): Promise<BrokerTls> {
  const files = { caFile: join(dir, "ca.pem"), caKey: join(dir, "ca.key"), keystoreFile: join(dir, "broker.pem") };
  if (existsSync(files.caFile) && existsSync(files.keystoreFile)) return { caFile: files.caFile, keystoreFile: files.keystoreFile };
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const [key, csr, crt, ext] = ["broker.key", "broker.csr", "broker.crt", "broker.ext"].map((f) => join(dir, f)) as [
    string,
    string,
    string,
    string,
  ];
  await openssl(
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", DAYS, "-subj", "/CN=ladder local Kafka CA"]
      .concat(["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
      .concat(["-keyout", files.caKey, "-out", files.caFile]),
  );
  await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", key, "-out", csr]);
  await writeFile(
    ext,
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n",
  );
  await openssl([
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    files.caFile,
    "-CAkey",
    files.caKey,
    "-CAcreateserial",
    "-days",
    DAYS,
    "-extfile",
    ext,
    "-out",
    crt,
  ]);
  const keystore = `${(await readFile(key, "utf8")).trimEnd()}\n${(await readFile(crt, "utf8")).trimEnd()}\n`;
  await writeFile(files.keystoreFile, keystore, { mode: 0o600 });
  await chmod(files.caKey, 0o600);
  await Promise.all([key, csr, crt, ext, join(dir, "ca.srl")].map((f) => rm(f, { force: true })));
  return { caFile: files.caFile, keystoreFile: files.keystoreFile };
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run("openssl", args, { timeout: 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`openssl ${args[0]} failed (making the Kafka broker's TLS certificate): ${e.stderr || e.message}`, { cause: err });
  }
}
