/**
 * The table of `export`: AdminService.ExportPlayerData through the router.
 */
import { command } from "../command-table.js";
import { PLAYER } from "./shared.js";

export const EXPORT = command({
  name: "export",
  service: "router",
  summary: "everything the cluster holds of a player: every entry with its rank and metadata, and its records in the log",
  about: "Prints one JSON document (a data subject's request).",
  flags: { player: PLAYER },
  example: "export --player alice",
});
