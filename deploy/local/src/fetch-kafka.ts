// Fetches (or finds in the cache, or in KAFKA_HOME) the Kafka broker's jars, so the first `npm start`
// or test run does not wait for Maven. Run by scripts/setup.sh.
import { rootLogger } from "@ladder/platform/logger";
import { ensureKafkaJars } from "./kafka-jars.js";
import { loadLocalConfig } from "./local-config.js";

const local = loadLocalConfig(process.env, process.cwd());
const libs = await ensureKafkaJars({
  cacheDir: local.cacheDir,
  kafkaHome: local.kafkaHome,
  log: rootLogger({ level: local.logLevel, name: "setup" }),
});
console.log(`kafka jars: ${libs}`);
