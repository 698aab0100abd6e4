/**
 * A SQLite connection with its prepared statements cached (each SQL text is compiled once) and transactions
 * that roll back when their body throws: what the run store and the batch ledger both need.
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";

/** Rows per page of {@linkcode SqliteConnection.pages}. */
export const PAGE_ROWS = 2048;

/**
 * Rows per page of {@linkcode SqliteConnection.linePages}: a page is one value in memory, so that a page of
 * long answers stays a few MB (at 100 KB an answer, 25 MB).
 */
export const LINE_PAGE_ROWS = 256;

/** Throws unless `size` (rows per page) is a whole number of at least 1. */
function checkPageSize(size: number): void {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`a page holds at least one row, not ${size}`);
}

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

/** A query {@linkcode SqliteConnection.arrayPages} reads a page at a time, each row as an array. */
export interface ArrayPagedQuery {
  /** The table. */
  table: string;
  /** The columns selected, in the order each row's array holds them; they must include `keys`. */
  columns: readonly string[];
  /** The columns the rows are ordered by: together unique and never NULL (a row is found after the one before). */
  keys: readonly string[];
}

/** A query {@linkcode SqliteConnection.linePages} reads a page of lines at a time. */
export interface LinePagedQuery {
  /** The table. */
  table: string;
  /** A TEXT expression of the columns: a row's line, its newline included. */
  line: string;
  /** The columns the rows are ordered by: together unique and never NULL (a page ends at a row of them). */
  keys: readonly string[];
}

/** The SQL condition that a row's `keys` come after the `?` values bound for them (keyset pagination). */
function afterKeys(keys: readonly string[]): string {
  return `(${keys.join(", ")}) > (${keys.map(() => "?").join(", ")})`;
}

/**
 * Yields the rows of pages of `size` rows until one is short: `first()` reads the first page, `after(last)` the
 * page after the row `last` (the loop of {@linkcode SqliteConnection.pages} and
 * {@linkcode SqliteConnection.arrayPages}).
 */
function* keysetPages<R>(first: () => R[], after: (last: R) => R[], size: number): Generator<R> {
  let rows = first();
  while (rows.length > 0) {
    yield* rows;
    if (rows.length < size) return;
    rows = after(rows[rows.length - 1]);
  }
}

/** One SQLite connection (node:sqlite). */
export class SqliteConnection {
  /** The open database. */
  readonly db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  /** The statements that return rows as arrays ({@linkcode arrayPages}), apart from the rest. */
  readonly #arrayStatements = new Map<string, StatementSync>();

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
    checkPageSize(size);
    const { table, columns = "*", where, params = [], keys } = query;
    const order = keys.join(", ");
    const head = `SELECT ${columns} FROM ${table} WHERE ${where ?? "1"}`;
    const first = this.prepare(`${head} ORDER BY ${order} LIMIT ?`);
    const after = this.prepare(`${head} AND ${afterKeys(keys)} ORDER BY ${order} LIMIT ?`);
    type Row = Record<string, unknown>;
    yield* keysetPages<Row>(
      () => first.all(...params, size) as Row[],
      (last) => after.all(...params, ...keys.map((k) => last[k] as SQLInputValue), size) as Row[],
      size,
    );
  }

  /**
   * Yields the rows of `query` as {@linkcode pages} does, each as an array of its `columns` in their order: a
   * row costs node:sqlite no object with a property per column (at 33,735 score rows of 11 columns ~55-70 ms
   * against ~90-180 ms as objects).
   */
  *arrayPages(query: ArrayPagedQuery, size = PAGE_ROWS): Generator<unknown[]> {
    checkPageSize(size);
    const { table, columns, keys } = query;
    const order = keys.join(", ");
    const at = keys.map((key) => {
      const index = columns.indexOf(key);
      if (index < 0) throw new Error(`arrayPages: key ${key} is not among the columns of ${table}`);
      return index;
    });
    const head = `SELECT ${columns.join(", ")} FROM ${table}`;
    const first = this.#arrayStatement(`${head} ORDER BY ${order} LIMIT ?`);
    const after = this.#arrayStatement(`${head} WHERE ${afterKeys(keys)} ORDER BY ${order} LIMIT ?`);
    yield* keysetPages<unknown[]>(
      () => first.all(size) as unknown as unknown[][],
      (last) => after.all(...at.map((i) => last[i] as SQLInputValue), size) as unknown as unknown[][],
      size,
    );
  }

  /**
   * Yields the `line` of every row of `query`'s table in the order of its keys, `size` rows' lines at a time as
   * one byte array (their UTF-8 bytes as SQLite concatenates them, passed on as stored): one value crosses from
   * SQLite per page rather than one per row (at 33,735 outputs ~62 ms against ~85-150 ms a line at a time). A
   * page ends at the keys of the row `size - 1` rows after its first, found on the keys' index. (SQLite orders
   * the concatenation by `group_concat(... ORDER BY ...)`, which it has had since 3.44; Deno 2 bundles newer.)
   */
  *linePages(query: LinePagedQuery, size = LINE_PAGE_ROWS): Generator<Uint8Array> {
    checkPageSize(size);
    const { table, line, keys } = query;
    const order = keys.join(", ");
    // A page is the rows after the last row of the page before (none for the first) up to its own last row
    // (none for the last page).
    const afterPrevious = afterKeys(keys);
    const upToLast = `(${order}) <= (${keys.map(() => "?").join(", ")})`;
    const where = (bounds: string[]) => bounds.length ? ` WHERE ${bounds.join(" AND ")}` : "";
    let from: SQLInputValue[] | undefined;
    while (true) {
      const after = from ? [afterPrevious] : [];
      const end = this.prepare(
        `SELECT ${order} FROM ${table}${where(after)} ORDER BY ${order} LIMIT 1 OFFSET ${size - 1}`,
      ).get(...(from ?? [])) as Record<string, SQLInputValue> | undefined;
      const to = end && keys.map((key) => end[key]);
      const page = this.prepare(
        `SELECT CAST(group_concat(${line}, '' ORDER BY ${order}) AS BLOB) AS lines FROM ${table}${
          where(to ? [...after, upToLast] : after)
        }`,
      ).get(...(from ?? []), ...(to ?? []))?.lines as Uint8Array | null | undefined;
      if (page && page.length > 0) yield page;
      if (!to) return;
      from = to;
    }
  }

  /** Returns the prepared statement of `sql` that returns rows as arrays, compiled on first use. */
  #arrayStatement(sql: string): StatementSync {
    let statement = this.#arrayStatements.get(sql);
    if (!statement) {
      this.#arrayStatements.set(sql, statement = this.db.prepare(sql));
      statement.setReturnArrays(true);
    }
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
