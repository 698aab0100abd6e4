/**
 * The run store: one SQLite database (WAL) per run directory holding the manifest, the samples, every model
 * and judge call (content-addressed), every output and every score. Rows are only ever added, or replaced when
 * a resumed run finishes what an interrupted one left failed; every table and figure is derived from here.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { type Sample, SampleSchema } from "../core/sample.ts";
import type { ChatMessage, TokenUsage } from "../providers/types.ts";

/** A finished call as stored. */
export interface StoredCall {
  /** Content address: hash of model, parameters, messages and repeat number. */
  key: string;
  /** `model` (the system under test), `judge`, or another role name. */
  role: string;
  /** Model name. */
  model: string;
  /** The messages and parameters sent. */
  request: { messages: ChatMessage[]; params: Record<string, unknown> };
  /** Reply text. */
  text: string;
  /** Why generation stopped, if reported. */
  finishReason: string | null;
  /** Token usage, if reported. */
  usage: TokenUsage | null;
  /** Attempts it took (1 = no retry). */
  attempts: number;
  /** Wall time of the successful attempt, in milliseconds. */
  latencyMs: number;
  /** ISO time it finished. */
  createdAt: string;
}

/** The answer of the model under test to one sample in one condition. */
export interface StoredOutput {
  /** Sample id. */
  sampleId: string;
  /** Experimental condition, e.g. `default`, `cot`. */
  condition: string;
  /** Call that produced it (`null` if it failed). */
  callKey: string | null;
  /** Answer text (`null` if it failed). */
  text: string | null;
  /** Error message when the call failed for good. */
  error: string | null;
}

/** One score of one sample by one scorer in one run (judge repetition). */
export interface StoredScore {
  /** Sample id. */
  sampleId: string;
  /** Experimental condition. */
  condition: string;
  /** Scorer name, e.g. `judge`. */
  scorer: string;
  /** Run number (1-based) for repeated judging; 1 otherwise. */
  run: number;
  /** The score, or `null` when no valid score could be obtained. */
  value: number | null;
  /** `false` for judge errors: they are never counted as scores. */
  valid: boolean;
  /** Judge's reason or scorer's note. */
  reason: string | null;
  /** The last call behind this score, if any. */
  callKey: string | null;
  /** Scorer-specific detail (JSON). */
  detail: unknown;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS samples (id TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (
  key TEXT PRIMARY KEY, role TEXT NOT NULL, model TEXT NOT NULL, request TEXT NOT NULL, text TEXT NOT NULL,
  finish_reason TEXT, usage TEXT, attempts INTEGER NOT NULL, latency_ms REAL NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outputs (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, call_key TEXT, text TEXT, error TEXT,
  PRIMARY KEY (sample_id, condition));
CREATE TABLE IF NOT EXISTS scores (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, scorer TEXT NOT NULL, run INTEGER NOT NULL,
  value REAL, valid INTEGER NOT NULL, reason TEXT, call_key TEXT, detail TEXT,
  PRIMARY KEY (sample_id, condition, scorer, run));
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL);
`;

/** Opens (creating if needed) the SQLite run store of a run directory. */
export class RunStore {
  /** Path of the database file. */
  readonly path: string;
  readonly #db: DatabaseSync;

  /** Opens `path` in WAL mode and creates the tables if they do not exist. */
  constructor(path: string) {
    this.path = path;
    this.#db = new DatabaseSync(path);
    this.#db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;");
    this.#db.exec(SCHEMA);
  }

  /** Returns the stored manifest, or `undefined` for a new store. */
  manifest(): Record<string, unknown> | undefined {
    const rows = this.#db.prepare("SELECT key, value FROM manifest").all() as {
      key: string;
      value: string;
    }[];
    if (rows.length === 0) return undefined;
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }

  /** Stores (or overwrites) manifest entries. */
  setManifest(entries: Record<string, unknown>): void {
    const stmt = this.#db.prepare("INSERT OR REPLACE INTO manifest (key, value) VALUES (?, ?)");
    this.#transaction(() => {
      for (const [key, value] of Object.entries(entries)) stmt.run(key, JSON.stringify(value));
    });
  }

  /** Adds samples not stored yet, keeping their order. */
  putSamples(samples: readonly Sample[]): void {
    const stmt = this.#db.prepare("INSERT OR IGNORE INTO samples (id, position, data) VALUES (?, ?, ?)");
    this.#transaction(() => samples.forEach((s, i) => stmt.run(s.id, i, JSON.stringify(s))));
  }

  /** Returns the stored samples in their original order, validated. */
  samples(): Sample[] {
    const rows = this.#db.prepare("SELECT data FROM samples ORDER BY position").all() as { data: string }[];
    return rows.map((r) => SampleSchema.parse(JSON.parse(r.data)));
  }

  /** Returns the finished call with this key, if any. */
  getCall(key: string): StoredCall | undefined {
    const row = this.#db.prepare("SELECT * FROM calls WHERE key = ?").get(key) as
      | Record<string, unknown>
      | undefined;
    return row ? rowToCall(row) : undefined;
  }

  /** Stores a finished call (a call is immutable: storing the same key twice keeps the first). */
  putCall(call: StoredCall): void {
    this.#db.prepare(
      `INSERT OR IGNORE INTO calls (key, role, model, request, text, finish_reason, usage, attempts, latency_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    );
  }

  /** Returns every stored call, oldest first. */
  calls(): StoredCall[] {
    return (this.#db.prepare("SELECT * FROM calls ORDER BY created_at, key").all() as Record<
      string,
      unknown
    >[])
      .map(rowToCall);
  }

  /** Stores the output of a sample in a condition (replacing an earlier failed one on resume). */
  putOutput(output: StoredOutput): void {
    this.#db.prepare(
      "INSERT OR REPLACE INTO outputs (sample_id, condition, call_key, text, error) VALUES (?, ?, ?, ?, ?)",
    ).run(output.sampleId, output.condition, output.callKey, output.text, output.error);
  }

  /** Returns the stored outputs, optionally of one condition. */
  outputs(condition?: string): StoredOutput[] {
    return this.#rowsOf("outputs", "sample_id", condition).map((r) => ({
      sampleId: String(r.sample_id),
      condition: String(r.condition),
      callKey: r.call_key === null ? null : String(r.call_key),
      text: r.text === null ? null : String(r.text),
      error: r.error === null ? null : String(r.error),
    }));
  }

  /** Stores one score (replacing the same sample/condition/scorer/run on resume). */
  putScore(score: StoredScore): void {
    this.#db.prepare(
      `INSERT OR REPLACE INTO scores (sample_id, condition, scorer, run, value, valid, reason, call_key, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      score.sampleId,
      score.condition,
      score.scorer,
      score.run,
      score.value,
      score.valid ? 1 : 0,
      score.reason,
      score.callKey,
      score.detail === undefined ? null : JSON.stringify(score.detail),
    );
  }

  /** Returns the stored scores, optionally of one condition, ordered by sample, scorer and run. */
  scores(condition?: string): StoredScore[] {
    return this.#rowsOf("scores", "sample_id, scorer, run", condition).map((r) => ({
      sampleId: String(r.sample_id),
      condition: String(r.condition),
      scorer: String(r.scorer),
      run: Number(r.run),
      value: r.value === null ? null : Number(r.value),
      valid: Number(r.valid) === 1,
      reason: r.reason === null ? null : String(r.reason),
      callKey: r.call_key === null ? null : String(r.call_key),
      detail: r.detail === null ? null : JSON.parse(String(r.detail)),
    }));
  }

  /** Rows of `table` (`outputs` or `scores`) in `order`, of one condition when given. */
  #rowsOf(table: "outputs" | "scores", order: string, condition?: string): Record<string, unknown>[] {
    const where = condition === undefined ? "" : " WHERE condition = ?";
    const statement = this.#db.prepare(`SELECT * FROM ${table}${where} ORDER BY ${order}`);
    return (condition === undefined ? statement.all() : statement.all(condition)) as Record<
      string,
      unknown
    >[];
  }

  /** Appends an event (retry, failure, resume) to the run log. */
  logEvent(kind: string, detail: unknown): void {
    this.#db.prepare("INSERT INTO events (at, kind, detail) VALUES (?, ?, ?)").run(
      new Date().toISOString(),
      kind,
      JSON.stringify(detail),
    );
  }

  /** Returns the logged events, oldest first. */
  events(): { at: string; kind: string; detail: unknown }[] {
    return (this.#db.prepare("SELECT at, kind, detail FROM events ORDER BY id").all() as Record<
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
  };
}
