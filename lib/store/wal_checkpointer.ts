/**
 * Checkpoints of a run store's write-ahead log, taken from a connection of their own in another thread (the
 * export worker's), so that the run's thread never waits for them.
 *
 * A checkpoint copies the pages the log holds into the database file, and in `synchronous = NORMAL` it syncs
 * the log before and the file after: at 33,735 one-call samples, SQLite's automatic checkpoints (each 1,000
 * pages) held the run's thread ~0.8 s in all, up to ~30 ms at a time, while answers waited for their next
 * requests. Taken here, they are PASSIVE: they never wait for the run's writes, which never wait for them, and
 * a write that finds the whole log copied starts it afresh, so the log stays as short as before. The run's own
 * connection keeps a far bound ({@linkcode CHECKPOINT_FALLBACK_PAGES}) should this connection stop.
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/**
 * Log pages (4 KiB each) past which a store whose checkpoints are left to a {@linkcode WalCheckpointer} still
 * checkpoints on its own connection: a bound on the log, reached only if the checkpointer stops.
 */
export const CHECKPOINT_FALLBACK_PAGES = 8192;

/** What one checkpoint did: SQLite's `wal_checkpoint` row. */
export interface CheckpointResult {
  /** 1 when it could not run at all (another checkpoint under way). */
  busy: number;
  /** Pages in the log. */
  log: number;
  /** Pages of the log copied into the database (all of them, unless a reader still needs earlier ones). */
  checkpointed: number;
}

/** A connection to a run store that only checkpoints its log. */
export class WalCheckpointer {
  readonly #db: DatabaseSync;

  /** Opens the store at `path` (in WAL mode, as `RunStore` made it) for checkpoints. */
  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    // The syncs around a checkpoint are this connection's: the same durability as the store's own.
    this.#db.exec("PRAGMA synchronous = NORMAL;");
  }

  /** Copies what the log holds into the database without waiting for any reader or writer (PASSIVE). */
  checkpoint(): CheckpointResult {
    const row = this.#db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as Record<string, number>;
    return { busy: Number(row.busy), log: Number(row.log), checkpointed: Number(row.checkpointed) };
  }

  /** Closes the connection (once). */
  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}
