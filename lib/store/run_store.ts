/**
 * The run store: one SQLite database (WAL) per run directory holding the manifest, the samples, every model
 * and judge call (content-addressed), every output and every score. Rows are only ever added, or replaced when
 * a resumed run finishes what an interrupted one left failed; every table and figure is derived from here.
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { type Sample, SampleSchema } from "../core/sample.ts";
import type { OutputStatus, StoredCall, StoredOutput, StoredScore } from "../core/records.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS samples (id TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (
  key TEXT PRIMARY KEY, role TEXT NOT NULL, model TEXT NOT NULL, request TEXT NOT NULL, text TEXT NOT NULL,
  finish_reason TEXT, usage TEXT, attempts INTEGER NOT NULL, latency_ms REAL NOT NULL, created_at TEXT NOT NULL,
  endpoint TEXT);
CREATE TABLE IF NOT EXISTS outputs (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, call_key TEXT, text TEXT, error TEXT, detail TEXT,
  PRIMARY KEY (sample_id, condition));
CREATE TABLE IF NOT EXISTS scores (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, scorer TEXT NOT NULL, judge TEXT NOT NULL DEFAULT '',
  run INTEGER NOT NULL, value REAL, named_values TEXT, valid INTEGER NOT NULL, reason TEXT, call_key TEXT,
  detail TEXT, PRIMARY KEY (sample_id, condition, scorer, judge, run));
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL);
`;

/** Opens (creating if needed) the SQLite run store of a run directory. */
export class RunStore {
  /** Path of the database file. */
  readonly path: string;
  readonly #db: DatabaseSync;
  /** Prepared statements by SQL text: each is compiled once per store, not once per call. */
  readonly #statements = new Map<string, StatementSync>();

  /**
   * Opens `path` in WAL mode and creates the tables if they do not exist; a store written before scores had a
   * judge is brought up to date in place. `readOnly` opens an existing store without changing it (collecting).
   */
  constructor(path: string, options: { readOnly?: boolean } = {}) {
    this.path = path;
    this.#db = new DatabaseSync(path, { readOnly: options.readOnly ?? false });
    if (options.readOnly) {
      this.#db.exec("PRAGMA busy_timeout = 5000;");
      return;
    }
    this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    this.#migrateScores();
    this.#db.exec(SCHEMA);
    this.#migrateOutputs();
  }

  /** Adds the columns later versions added: outputs' `detail` (solvers' choices) and calls' `endpoint`. */
  #migrateOutputs(): void {
    const columns = this.#prepare("PRAGMA table_info(outputs)").all() as { name: string }[];
    if (!columns.some((c) => c.name === "detail")) {
      this.#db.exec("ALTER TABLE outputs ADD COLUMN detail TEXT");
    }
    const callColumns = this.#prepare("PRAGMA table_info(calls)").all() as { name: string }[];
    if (!callColumns.some((c) => c.name === "endpoint")) {
      this.#db.exec("ALTER TABLE calls ADD COLUMN endpoint TEXT");
    }
  }

  /** Returns the prepared statement of `sql`, compiled on first use. */
  #prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) this.#statements.set(sql, statement = this.#db.prepare(sql));
    return statement;
  }

  /** Rebuilds a scores table of the first layout (no judge, no named values) in the current one. */
  #migrateScores(): void {
    const columns = this.#prepare("PRAGMA table_info(scores)").all() as { name: string }[];
    if (columns.length === 0 || columns.some((c) => c.name === "judge")) return;
    this.#transaction(() => {
      this.#db.exec("ALTER TABLE scores RENAME TO scores_v1");
      this.#db.exec(SCHEMA);
      this.#db.exec(
        `INSERT INTO scores (sample_id, condition, scorer, judge, run, value, named_values, valid, reason, call_key, detail)
         SELECT sample_id, condition, scorer, '', run, value, NULL, valid, reason, call_key, detail FROM scores_v1`,
      );
      this.#db.exec("DROP TABLE scores_v1");
    });
  }

  /** Returns the stored manifest, or `undefined` for a new store. */
  manifest(): Record<string, unknown> | undefined {
    const rows = this.#prepare("SELECT key, value FROM manifest").all() as {
      key: string;
      value: string;
    }[];
    if (rows.length === 0) return undefined;
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }

  /** Stores (or overwrites) manifest entries. */
  setManifest(entries: Record<string, unknown>): void {
    const stmt = this.#prepare("INSERT OR REPLACE INTO manifest (key, value) VALUES (?, ?)");
    this.#transaction(() => {
      for (const [key, value] of Object.entries(entries)) stmt.run(key, JSON.stringify(value));
    });
  }

  /** Adds samples not stored yet, keeping their order. */
  putSamples(samples: readonly Sample[]): void {
    const stmt = this.#prepare("INSERT OR IGNORE INTO samples (id, position, data) VALUES (?, ?, ?)");
    this.#transaction(() => samples.forEach((s, i) => stmt.run(s.id, i, JSON.stringify(s))));
  }

  /** Returns the stored samples in their original order, validated. */
  samples(): Sample[] {
    const rows = this.#prepare("SELECT data FROM samples ORDER BY position").all() as { data: string }[];
    return rows.map((r) => SampleSchema.parse(JSON.parse(r.data)));
  }

  /** Returns the finished call with this key, if any. */
  getCall(key: string): StoredCall | undefined {
    const row = this.#prepare("SELECT * FROM calls WHERE key = ?").get(key) as
      | Record<string, unknown>
      | undefined;
    return row ? rowToCall(row) : undefined;
  }

  /** Stores a finished call (a call is immutable: storing the same key twice keeps the first). */
  putCall(call: StoredCall): void {
    this.#prepare(
      `INSERT OR IGNORE INTO calls (key, role, model, request, text, finish_reason, usage, attempts, latency_ms, created_at, endpoint)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      call.key,
      call.role,
      call.model,
      JSON.stringify(call.request),
      call.text,
      call.finishReason,
      call.usage ? JSON.stringify(call.usage) : null,
      call.attempts,
      call.latencyMs,
      call.createdAt,
      call.endpoint ?? null,
    );
  }

  /** Returns every stored call, oldest first. */
  calls(): StoredCall[] {
    return [...this.eachCall()];
  }

  /** Yields every stored call, oldest first, one at a time (exports of large runs hold one call at a time). */
  *eachCall(): Generator<StoredCall> {
    for (const row of this.#prepare("SELECT * FROM calls ORDER BY created_at, key").iterate()) {
      yield rowToCall(row as Record<string, unknown>);
    }
  }

  /** Returns the conditions that have outputs, in the order they were first stored. */
  conditions(): string[] {
    const rows = this.#prepare("SELECT condition FROM outputs GROUP BY condition ORDER BY MIN(rowid)")
      .all() as {
        condition: string;
      }[];
    return rows.map((r) => r.condition);
  }

  /** Returns whether each sample was answered in `condition`, without the answers' texts. */
  outputStatus(condition: string): OutputStatus[] {
    const rows = this.#prepare(
      "SELECT sample_id, text IS NOT NULL AS answered, error FROM outputs WHERE condition = ? ORDER BY sample_id",
    ).all(condition) as Record<string, unknown>[];
    return rows.map((r) => ({
      sampleId: String(r.sample_id),
      answered: Number(r.answered) === 1,
      error: r.error === null ? null : String(r.error),
    }));
  }

  /** Stores the output of a sample in a condition (replacing an earlier failed one on resume). */
  putOutput(output: StoredOutput): void {
    this.#prepare(
      "INSERT OR REPLACE INTO outputs (sample_id, condition, call_key, text, error, detail) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(
      output.sampleId,
      output.condition,
      output.callKey,
      output.text,
      output.error,
      output.detail ? JSON.stringify(output.detail) : null,
    );
  }

  /** Returns the stored outputs, optionally of one condition. */
  outputs(condition?: string): StoredOutput[] {
    return this.#rowsOf("outputs", "sample_id", condition).map((r) => ({
      sampleId: String(r.sample_id),
      condition: String(r.condition),
      callKey: r.call_key === null ? null : String(r.call_key),
      text: r.text === null ? null : String(r.text),
      error: r.error === null ? null : String(r.error),
      detail: r.detail === null || r.detail === undefined ? null : JSON.parse(String(r.detail)),
    }));
  }

  /** Stores one score (replacing the same sample/condition/scorer/judge/run on resume). */
  putScore(score: StoredScore): void {
    this.#prepare(
      `INSERT OR REPLACE INTO scores (sample_id, condition, scorer, judge, run, value, named_values, valid, reason, call_key, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      score.sampleId,
      score.condition,
      score.scorer,
      score.judge ?? "",
      score.run,
      score.value,
      score.values === null ? null : JSON.stringify(score.values),
      score.valid ? 1 : 0,
      score.reason,
      score.callKey,
      score.detail === undefined ? null : JSON.stringify(score.detail),
    );
  }

  /** Replaces every score of `scorer` in `condition` by `scores`, in one transaction (imported ratings). */
  replaceScores(scorer: string, condition: string, scores: readonly StoredScore[]): void {
    this.#transaction(() => {
      this.#prepare("DELETE FROM scores WHERE scorer = ? AND condition = ?").run(scorer, condition);
      for (const score of scores) this.putScore(score);
    });
  }

  /** Returns the stored scores, optionally of one condition, ordered by sample, scorer, judge and run. */
  scores(condition?: string): StoredScore[] {
    return this.#rowsOf("scores", "sample_id, scorer, judge, run", condition).map((r) => ({
      sampleId: String(r.sample_id),
      condition: String(r.condition),
      scorer: String(r.scorer),
      judge: r.judge === "" ? null : String(r.judge),
      run: Number(r.run),
      value: r.value === null ? null : Number(r.value),
      values: r.named_values === null ? null : JSON.parse(String(r.named_values)),
      valid: Number(r.valid) === 1,
      reason: r.reason === null ? null : String(r.reason),
      callKey: r.call_key === null ? null : String(r.call_key),
      detail: r.detail === null ? null : JSON.parse(String(r.detail)),
    }));
  }

  /** Rows of `table` (`outputs` or `scores`) in `order`, of one condition when given. */
  #rowsOf(table: "outputs" | "scores", order: string, condition?: string): Record<string, unknown>[] {
    const where = condition === undefined ? "" : " WHERE condition = ?";
    const statement = this.#prepare(`SELECT * FROM ${table}${where} ORDER BY ${order}`);
    return (condition === undefined ? statement.all() : statement.all(condition)) as Record<
      string,
      unknown
    >[];
  }

  /** Appends an event (retry, failure, resume) to the run log. */
  logEvent(kind: string, detail: unknown): void {
    this.#prepare("INSERT INTO events (at, kind, detail) VALUES (?, ?, ?)").run(
      new Date().toISOString(),
      kind,
      JSON.stringify(detail),
    );
  }

  /** Returns the logged events, oldest first. */
  events(): { at: string; kind: string; detail: unknown }[] {
    return (this.#prepare("SELECT at, kind, detail FROM events ORDER BY id").all() as Record<
      string,
      string
    >[])
      .map((r) => ({ at: r.at, kind: r.kind, detail: JSON.parse(r.detail) }));
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }

  #transaction(fn: () => void): void {
    this.#db.exec("BEGIN");
    try {
      fn();
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }
}

function rowToCall(row: Record<string, unknown>): StoredCall {
  return {
    key: String(row.key),
    role: String(row.role),
    model: String(row.model),
    request: JSON.parse(String(row.request)),
    text: String(row.text),
    finishReason: row.finish_reason === null ? null : String(row.finish_reason),
    usage: row.usage === null ? null : JSON.parse(String(row.usage)),
    attempts: Number(row.attempts),
    latencyMs: Number(row.latency_ms),
    createdAt: String(row.created_at),
    endpoint: row.endpoint === null || row.endpoint === undefined ? null : String(row.endpoint),
  };
}
