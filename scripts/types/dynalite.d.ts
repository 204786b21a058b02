// dynalite ships no types; this declares the part webgate uses (an in-memory DynamoDB emulator).
declare module "dynalite" {
  import type { Server } from "node:http";

  interface DynaliteOptions {
    /** LevelDB folder; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    ssl?: boolean;
    verbose?: boolean;
    debug?: boolean;
  }

  /** Returns a plain Node HTTP server speaking the DynamoDB JSON protocol; call `listen` on it. */
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
