/**
 * A SQLite connection with its prepared statements cached (each SQL text is compiled once) and transactions
 * that roll back when their body throws: what the run store and the batch ledger both need.
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";

/** Rows per page of {@linkcode SqliteConnection.pages}. */
export const PAGE_ROWS = 2048;

/** A query {@linkcode SqliteConnection.pages} reads a page at a time. */
export interface PagedQuery {
  /** The table. */
  table: string;
  /** The columns selected (default `*`); they must include `keys`. */
  columns?: string;
  /** A condition on the rows (SQL), with `?` for each of `params`. */
  where?: string;
  /** Values of the `?` in `where`. */
  params?: SQLInputValue[];
  /** The columns the rows are ordered by: together unique and never NULL (a row is found after the one before). */
  keys: readonly string[];
}

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

  /**
   * Yields the rows of `query` in the order of its keys, read a page of `size` rows at a time: each page is one
   * `all()` of the rows after the last row of the page before (keyset pagination). About twice as fast as
   * `iterate()`, which crosses into SQLite once per row, while holding one page, not the whole result.
   */
  *pages(query: PagedQuery, size = PAGE_ROWS): Generator<Record<string, unknown>> {
    const { table, columns = "*", where, params = [], keys } = query;
    const order = keys.join(", ");
    const head = `SELECT ${columns} FROM ${table} WHERE ${where ?? "1"}`;
    const first = this.prepare(`${head} ORDER BY ${order} LIMIT ?`);
    const after = this.prepare(
      `${head} AND (${order}) > (${keys.map(() => "?").join(", ")}) ORDER BY ${order} LIMIT ?`,
    );
    let rows = first.all(...params, size) as Record<string, unknown>[];
    while (rows.length > 0) {
      yield* rows;
      if (rows.length < size) return;
      const last = rows[rows.length - 1];
      rows = after.all(...params, ...keys.map((k) => last[k] as SQLInputValue), size) as Record<
        string,
        unknown
      >[];
    }
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
