// Writes the Redis image's ACL templates (deploy/local/src/redis-acl-templates.ts) into the directory
// given as the first argument: build.sh stages them into the Redis image's context.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { redisAclTemplates } from "../local/src/redis-acl-templates.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: redis-acl-templates.ts <directory>");
for (const [name, text] of Object.entries(redisAclTemplates())) writeFileSync(join(dir, name), text);
