/**
 * The tables of the operators' commands: AdminService through the router.
 */
import { command } from "../command-table.js";
import { bigInteger, list, shaped, text } from "../flags.js";
import { shards } from "./shared.js";

export const REBUILD = command({
  name: "rebuild",
  service: "router",
  summary: "rebuild shards from the log and swap them in, or build an audit view",
  about:
    "Prints each shard's progress until it is done. Ctrl-C cancels: the server stops the rebuild, deletes what it wrote and releases the shard; the CLI waits for that (20 s at most) and exits with 130.",
  flags: {
    shard: shards("the shards to rebuild"),
    view: text({
      meaning: "build this audit view (read with --view) instead of rebuilding the live shards",
      placeholder: "NAME",
      unsetMeans: "rebuild the live shards",
    }),
    "as-of-ts": bigInteger({
      meaning: "with --view: only the records ingest accepted before this time, Unix ms (0: all)",
      default: "0",
      placeholder: "MS",
    }),
  },
  example: "rebuild --shard shard-1",
});

export const REBUILDS = command({
  name: "rebuilds",
  service: "router",
  summary: "the rebuilds running now",
  flags: { shard: shards("only the rebuilds of these shards") },
  example: "rebuilds",
});

export const RESHARD = command({
  name: "reshard",
  service: "router",
  summary: "add or remove shards online: the plan, each shard's build, the cut-over",
  flags: {
    add: list({
      meaning: "shards to add, each an id and its Redis",
      item: shaped({ meaning: "", pattern: /^[^=,]+=\S+$/, shape: "id=redis://host:port" }),
      unsetMeans: "none",
    }),
    remove: list({
      meaning: "shards to remove: their slots go to the others (stop their nodes after)",
      placeholder: "ID,...",
      unsetMeans: "none",
    }),
  },
  atLeastOne: [["add", "remove"]],
  example: "reshard --add shard-3=redis://127.0.0.1:7004",
});

export const PLACEMENT = command({
  name: "placement",
  service: "router",
  summary: "the placement the router reads by: its epoch, shards and slots",
  flags: {},
  example: "placement",
});

export const STATUS = command({
  name: "status",
  service: "router",
  summary: "each shard's readiness, lag, size and Redis nodes; Kafka; the local launcher's processes",
  about:
    "Beside a local cluster (npm start), also the processes its launcher supervises, from <LADDER_DATA_DIR>/launcher-state.json; that part is printed even when the router does not answer (the command then exits with 1).",
  flags: { shard: shards("only these shards") },
  example: "status",
});
