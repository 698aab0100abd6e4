/**
 * A SQLite connection with its prepared statements cached (each SQL text is compiled once) and transactions
 * that roll back when their body throws: what the run store and the batch ledger both need.
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";

/** One SQLite connection (node:sqlite). */
export class SqliteConnection {
  /** The open database. */
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  /** Opens `path` (read-only when asked). */
  constructor(path: string, options: { readOnly?: boolean } = {}) {
    this.db = new DatabaseSync(path, { readOnly: options.readOnly ?? false });
  }

  /** Returns the prepared statement of `sql`, compiled on first use. */
  prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, statement = this.db.prepare(sql));
    return statement;
  }

  /** Runs `fn` in one transaction (`IMMEDIATE` takes the write lock at once); a throw rolls it back. */
  transaction(fn: () => void, mode: "DEFERRED" | "IMMEDIATE" = "DEFERRED"): void {
    this.db.exec(`BEGIN ${mode}`);
    try {
      fn();
      this.db.exec("COMMIT");
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }

  /** Closes the connection (once). */
  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
