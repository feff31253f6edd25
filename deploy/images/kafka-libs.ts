// Prints the directory of the Kafka broker's jars for the image build (build.sh copies it into the
// Kafka image's context): the local cluster's own cache, fetched from Maven Central when missing.
import { homedir } from "node:os";
import { join } from "node:path";
import { rootLogger } from "@ladder/platform/logger";
import { ensureKafkaJars } from "../local/src/kafka-jars.js";

const cacheDir = process.env.LADDER_CACHE_DIR ?? join(homedir(), ".cache", "ladder");
const libs = await ensureKafkaJars({ cacheDir, log: rootLogger({ level: "warn", name: "kafka-libs" }) });
process.stdout.write(`${libs}\n`);
