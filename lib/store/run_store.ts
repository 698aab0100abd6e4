/**
 * The run store: one SQLite database (WAL) per run directory holding the manifest, the samples, every model
 * and judge call (content-addressed), every output and every score. Rows are only ever added, or replaced when
 * a resumed run finishes what an interrupted one left failed; every table and figure is derived from here.
 *
 * Writes of calls, outputs, scores and events are queued and committed together, one transaction per
 * {@linkcode WRITE_DELAY_MS} (or per {@linkcode WRITE_BATCH} rows): a commit per row cost more CPU than the rest
 * of a call's handling. Every read commits the queue first (and a queued call is answered from memory), so
 * readers never see the difference; a process killed outright loses at most the last moment's results, which a
 * resumed run recomputes.
 * @module
 */
import type { StatementSync } from "node:sqlite";
import { SqliteConnection } from "./sqlite.ts";
import { InputError } from "../core/errors.ts";
import { SharedValues } from "../core/shared_values.ts";
import type { Sample } from "../core/sample.ts";
import type {
  OutputOutcomeCounts,
  OutputStatus,
  StoredCall,
  StoredOutput,
  StoredScore,
} from "../core/records.ts";
import { isRefused } from "../core/refusal.ts";
import { type CallEnd, compareUtf8, HeldView } from "./held_view.ts";
import { CHECKPOINT_FALLBACK_PAGES } from "./wal_checkpointer.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS samples (id TEXT PRIMARY KEY, position INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS samples_by_position ON samples (position, id);
CREATE TABLE IF NOT EXISTS calls (
  key TEXT PRIMARY KEY, role TEXT NOT NULL, model TEXT NOT NULL, request TEXT NOT NULL, text TEXT NOT NULL,
  finish_reason TEXT, usage TEXT, attempts INTEGER NOT NULL, latency_ms REAL NOT NULL, created_at TEXT NOT NULL,
  endpoint TEXT, condition TEXT, refusal TEXT, reasoning TEXT);
CREATE TABLE IF NOT EXISTS outputs (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, call_key TEXT, text TEXT, error TEXT, detail TEXT,
  PRIMARY KEY (sample_id, condition));
CREATE TABLE IF NOT EXISTS scores (
  sample_id TEXT NOT NULL, condition TEXT NOT NULL, scorer TEXT NOT NULL, judge TEXT NOT NULL DEFAULT '',
  run INTEGER NOT NULL, value REAL, named_values TEXT, valid INTEGER NOT NULL, reason TEXT, call_key TEXT,
  detail TEXT, PRIMARY KEY (sample_id, condition, scorer, judge, run));
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS row_changes (
  one INTEGER PRIMARY KEY CHECK (one = 1), store TEXT NOT NULL, rows INTEGER NOT NULL, generation TEXT NOT NULL);
`;

/** Token use of a group of stored calls (see {@linkcode RunStore.usageTotals}). */
export interface UsageTotal {
  /** Role that made the calls. */
  role: string;
  /** Model name. */
  model: string;
  /** Condition that first needed them (`null` in stores of earlier versions). */
  condition: string | null;
  /** `true` for calls answered through a batch API. */
  batch: boolean;
  /** Number of calls. */
  calls: number;
  /** Prompt tokens reported. */
  prompt: number;
  /** Completion tokens reported. */
  completion: number;
  /** Calls whose server reported no usage. */
  withoutUsage: number;
}

/**
 * The calls in the order exports list them (by time, then key). No index serves this order, so the calls are
 * sorted once and read row by row (a page at a time would sort them again for every page). The log's calls file
 * is in this order, each line `callJson`'s: a change to either is a new `CALLS_FORMAT` (lib/store/export.ts),
 * or a calls file its note says is current is kept in the old form.
 */
const CALLS_IN_ORDER = "SELECT * FROM calls ORDER BY created_at, key";

/**
 * The order outputs and scores are read and exported in: by sample, then (scores) scorer, judge and run, the
 * condition last (one row of each key, so a page read starts after the row before). The outputs' order is their
 * primary key's; the scores' puts the condition after the rest of it, as every reader of one condition has it.
 */
const ROW_ORDER = {
  outputs: ["sample_id", "condition"],
  scores: ["sample_id", "scorer", "judge", "run", "condition"],
} as const;

/**
 * An output's line in the log (newline included), as SQLite builds it from the row's columns: `JSON.stringify`
 * of the output's record, as `rowToOutput` reads it from the same row. SQLite's `json_quote` escapes a text as
 * `JSON.stringify` does (tests/export_stream_test.ts checks every code point), for the valid UTF-8 the store
 * writes (bytes put there by another program pass as they are, where node:sqlite would read U+FFFD); stored
 * JSON is spliced as is.
 */
const OUTPUT_LINE = `'{"sampleId":' || json_quote(sample_id) || ',"condition":' || json_quote(condition) ||
  ',"callKey":' || json_quote(call_key) || ',"text":' || json_quote(text) || ',"error":' || json_quote(error) ||
  ',"detail":' || coalesce(detail, 'null') || '}' || char(10)`;

/** The scores' primary key, in its order. */
const SCORE_KEY = ["sample_id", "condition", "scorer", "judge", "run"];

/**
 * Orders two score rows of one sample, read as arrays in {@linkcode SCORE_COLUMNS}' order, as
 * {@linkcode ROW_ORDER} has them: scorer, judge (none, `""`, first), run, then condition, in UTF-8 byte order.
 */
function compareScoreArrays(a: readonly unknown[], b: readonly unknown[]): number {
  return compareUtf8(String(a[2]), String(b[2])) || compareUtf8(String(a[3]), String(b[3])) ||
    Number(a[4]) - Number(b[4]) || compareUtf8(String(a[1]), String(b[1]));
}

/** Longest a queued write waits before it is committed, in milliseconds. */
export const WRITE_DELAY_MS = 25;
/**
 * Samples of a new store written per timed commit (about 3 ms of work): a large data set's samples are written
 * while the run's first requests are under way, not before them.
 */
export const SAMPLES_PER_FLUSH = 256;
/** Queued writes that are committed at once without waiting. */
export const WRITE_BATCH = 2000;

export type { OutputOutcomeCounts };

/**
 * The characters JavaScript's `String.prototype.trim` removes (white space and line terminators), given to
 * SQLite's `trim(X, Y)`, whose default removes spaces only: an answer of ideographic spaces is empty in both.
 */
export const TRIMMED_CHARACTERS =
  "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" +
  "\u2028\u2029\u202f\u205f\u3000\ufeff";

/** SQL that is true when `text` is empty once trimmed of {@linkcode TRIMMED_CHARACTERS} (bound as `:ws`). */
function blankSql(text: string): string {
  return `trim(${text}, :ws) = ''`;
}

/**
 * SQL that is true when the call whose columns are prefixed `calls` (e.g. `c.`) was refused: `finish_reason`
 * `content_filter`, or a `refusal` with a reply empty once trimmed (`isRefused` of lib/core/refusal.ts, in SQL).
 * A missing call (a LEFT JOIN's NULLs) is not.
 */
function refusedSql(calls: string): string {
  return `(${calls}finish_reason IS 'content_filter' OR (COALESCE(${calls}refusal, '') <> '' AND ${
    blankSql(`${calls}text`)
  }))`;
}

/** One stored output of a condition with the scores stored for its sample, as {@linkcode RunStore.outputScores} reads it. */
export interface OutputScores extends OutputStatus {
  /** The call that produced the answer (`null` for failed answers). */
  callKey: string | null;
  /** How many scores each scorer stored for the sample in the condition. */
  scores: Record<string, number>;
}

/** How the finished calls of one role's model ended, as {@linkcode RunStore.callEndCounts} counts them. */
export interface CallEndCounts {
  /** The role that made them. */
  role: string;
  /** Model name. */
  model: string;
  /** Calls. */
  calls: number;
  /** Replies that ended at the token limit (`finish_reason` `length`). */
  truncated: number;
  /** Replies refused: `finish_reason` `content_filter`, or a `refusal` with a reply empty once trimmed. */
  refused: number;
  /** Replies not refused that are empty once trimmed. */
  empty: number;
}

/** A stored call as {@linkcode RunStore.callsStoredAfter} reads it. */
export interface StoredCallJson {
  /** Its number in the order calls were stored (SQLite's rowid: rows are never deleted). */
  number: number;
  /** When it was stored (ISO 8601): the export orders calls by this, then by key. */
  createdAt: string;
  /** Its key. */
  key: string;
  /** Its JSON text, as the export writes it. */
  json: string;
}

/**
 * Adds an inserted call to `totals` as {@linkcode RunStore.usageTotals}' SQL counts it: grouped by role, model,
 * condition and batch (an endpoint `LIKE 'batch:%'`, ASCII letters in any case), tokens that are numbers summed,
 * groups in the SQL's order (BINARY, no condition first, batches last).
 */
function addUsage(totals: UsageTotal[], call: StoredCall): void {
  const condition = call.condition ?? null;
  const batch = (call.endpoint ?? "").slice(0, 6).toLowerCase() === "batch:";
  let total = totals.find((t) =>
    t.role === call.role && t.model === call.model && t.condition === condition && t.batch === batch
  );
  if (!total) {
    total = {
      role: call.role,
      model: call.model,
      condition,
      batch,
      calls: 0,
      prompt: 0,
      completion: 0,
      withoutUsage: 0,
    };
    totals.push(total);
    totals.sort((a, b) =>
      compareUtf8(a.role, b.role) || compareUtf8(a.model, b.model) ||
      (a.condition === null ? (b.condition === null ? 0 : -1) : b.condition === null ? 1 : 0) ||
      compareUtf8(a.condition ?? "", b.condition ?? "") || Number(a.batch) - Number(b.batch)
    );
  }
  total.calls++;
  if (call.usage === null || call.usage === undefined) {
    total.withoutUsage++;
    return;
  }
  // JSON has no NaN or infinity: such a count is stored as null, which SUM leaves out.
  if (Number.isFinite(call.usage.prompt)) total.prompt += call.usage.prompt;
  if (Number.isFinite(call.usage.completion)) total.completion += call.usage.completion;
}

/** Opens (creating if needed) the SQLite run store of a run directory. */
export class RunStore {
  /** Path of the database file. */
  readonly path: string;
  readonly #sqlite: SqliteConnection;
  /** Writes not committed yet, in the order they were made. */
  #queue: {
    statement: StatementSync;
    values: (string | number | null)[];
    counted: boolean;
    /** The call a write of `calls` stores: its usage is added to the totals once it is inserted. */
    call?: StoredCall;
  }[] = [];
  /** Rows of samples, outputs and scores changed in the transaction under way ({@linkcode rowsMark}). */
  #rowChanges = 0;
  /** Calls among the queued writes, by key, so {@linkcode getCall} sees them before they are committed. */
  readonly #queuedCalls = new Map<string, StoredCall>();
  /**
   * The usage totals of the stored calls, once {@linkcode usageTotals} has read them: each call this store
   * inserts afterwards is added as it is committed, so they are not read again (at 33,735 calls the query took
   * ~80 ms of a run's tail).
   */
  #usage: UsageTotal[] | undefined;
  /** The lookups {@linkcode findCall} has gathered and not answered yet, by key. */
  #lookups:
    | Map<string, PromiseWithResolvers<StoredCall | undefined> & { request: StoredCall["request"] }>
    | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The stored samples, in their order, when {@linkcode putSamples} was given exactly them. */
  #heldSamples: readonly Sample[] | undefined;
  /** Samples of a new store not written yet, from `next` on (a slice per timed commit, the rest at close). */
  #unwritten: { samples: readonly Sample[]; next: number } | undefined;
  /** Writes to calls, outputs, scores and events so far (what the exported log files hold). */
  #writes = 0;
  /** The condition whose output statuses and scores are held in memory as written ({@linkcode holdView}). */
  #held: { condition: string; view: HeldView } | undefined;
  /** The condition, scorer and judge names of the held scores, one string of each. */
  readonly #heldNames = new SharedValues();

  /**
   * Opens `path` in WAL mode and creates the tables if they do not exist; a store written before scores had a
   * judge is brought up to date in place. `readOnly` opens an existing store without changing it (collecting).
   */
  constructor(path: string, options: { readOnly?: boolean } = {}) {
    this.path = path;
    this.#sqlite = new SqliteConnection(path, options);
    if (options.readOnly) {
      this.#sqlite.db.exec("PRAGMA busy_timeout = 5000;");
      return;
    }
    this.#sqlite.db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;",
    );
    this.#migrateScores();
    this.#sqlite.db.exec(SCHEMA);
    this.#migrateOutputs();
    // The store's own name, so that a store made afresh is never taken for this one at the same count.
    this.#prepare("INSERT OR IGNORE INTO row_changes (one, store, rows, generation) VALUES (1, ?, 0, ?)").run(
      crypto.randomUUID(),
      crypto.randomUUID(),
    );
  }

  /**
   * Adds the columns later versions added: outputs' `detail` (solvers' choices), calls' `endpoint`,
   * `condition`, `refusal` and `reasoning`.
   */
  #migrateOutputs(): void {
    const columns = this.#prepare("PRAGMA table_info(outputs)").all() as { name: string }[];
    if (!columns.some((c) => c.name === "detail")) {
      this.#sqlite.db.exec("ALTER TABLE outputs ADD COLUMN detail TEXT");
    }
    const callColumns = this.#prepare("PRAGMA table_info(calls)").all() as { name: string }[];
    for (const column of ["endpoint", "condition", "refusal", "reasoning"]) {
      if (!callColumns.some((c) => c.name === column)) {
        this.#sqlite.db.exec(`ALTER TABLE calls ADD COLUMN ${column} TEXT`);
      }
    }
  }

  /** Returns the prepared statement of `sql`, compiled on first use. */
  #prepare(sql: string): StatementSync {
    return this.#sqlite.prepare(sql);
  }

  /**
   * Queues one write; it is committed within {@linkcode WRITE_DELAY_MS}, or at once when the queue is full.
   * `counted`: a write of an output or a score, whose changed rows {@linkcode rowsMark} counts.
   */
  #write(sql: string, values: (string | number | null)[], counted = false, call?: StoredCall): void {
    this.#writes++;
    this.#queue.push({ statement: this.#prepare(sql), values, counted, call });
    if (this.#queue.length >= WRITE_BATCH) this.flush();
    else this.#timer ??= setTimeout(() => this.#commit(true), WRITE_DELAY_MS);
  }

  /** How many times calls, outputs, scores or events were written through this store (a change counter). */
  get writes(): number {
    return this.#writes;
  }

  /**
   * Leaves the checkpoints of the store's log to a `WalCheckpointer` (wal_checkpointer.ts) in another thread: this
   * connection then checkpoints only once the log passes {@linkcode CHECKPOINT_FALLBACK_PAGES}, so that its
   * commits never wait for a checkpoint's syncs. `false` takes them back (SQLite's default, each 1,000 pages).
   */
  leaveCheckpoints(elsewhere = true): void {
    this.#sqlite.db.exec(`PRAGMA wal_autocheckpoint = ${elsewhere ? CHECKPOINT_FALLBACK_PAGES : 1000};`);
  }

  /** Whether the store is open (not closed yet). */
  get isOpen(): boolean {
    return this.#sqlite.db.isOpen;
  }

  /** Log pages past which this connection checkpoints on its own (SQLite's `wal_autocheckpoint`). */
  get autoCheckpointPages(): number {
    const row = this.#prepare("PRAGMA wal_autocheckpoint").get() as Record<string, number>;
    return Number(Object.values(row)[0]);
  }

  /** Commits every queued write in one transaction (every read does this first). */
  flush(): void {
    this.#commit(false);
  }

  /**
   * Commits every queued write in one transaction; the store's timer (`withSamples`) also writes the next
   * {@linkcode SAMPLES_PER_FLUSH} samples of a new store not written yet, one slice each
   * {@linkcode WRITE_DELAY_MS}, whatever else is read or written meanwhile (a read's commit neither writes a
   * slice nor puts the next one off: before a run's first requests, its reads wrote three slices), and reads
   * the held condition's new score rows ahead of its view (`HeldView.readAhead`).
   */
  #commit(withSamples: boolean): void {
    if (this.#timer !== undefined && (withSamples || !this.#unwritten)) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const slice = withSamples && this.#unwritten !== undefined;
    if (this.#queue.length > 0 || slice) {
      const queue = this.#queue;
      this.#queue = [];
      const inserted: StoredCall[] = [];
      this.#transaction(() => {
        for (const { statement, values, counted, call } of queue) {
          const { changes } = statement.run(...values);
          if (counted) this.#rowChanges += Number(changes);
          if (call && Number(changes) > 0) inserted.push(call);
        }
        if (slice) this.#writeSamples(SAMPLES_PER_FLUSH);
      });
      if (this.#usage) { for (const call of inserted) addUsage(this.#usage, call); }
      this.#queuedCalls.clear();
    }
    if (this.#unwritten) this.#timer ??= setTimeout(() => this.#commit(true), WRITE_DELAY_MS);
    // A timed commit is a turn of its own, apart from the answers coming in: the held scores are read there.
    if (withSamples) this.#held?.view.readAhead();
  }

  /** Stores `sample` at `position` unless a sample of its id is stored already. */
  #insertSample(sample: Sample, position: number): void {
    const { changes } = this.#prepare("INSERT OR IGNORE INTO samples (id, position, data) VALUES (?, ?, ?)")
      .run(sample.id, position, JSON.stringify(sample));
    this.#rowChanges += Number(changes);
  }

  /** Writes up to `count` of the samples not written yet, in their order. */
  #writeSamples(count: number): void {
    const unwritten = this.#unwritten;
    if (!unwritten) return;
    const end = Math.min(unwritten.samples.length, unwritten.next + count);
    for (let i = unwritten.next; i < end; i++) this.#insertSample(unwritten.samples[i], i);
    unwritten.next = end;
    if (end === unwritten.samples.length) this.#unwritten = undefined;
  }

  /** Rebuilds a scores table of the first layout (no judge, no named values) in the current one. */
  #migrateScores(): void {
    const columns = this.#prepare("PRAGMA table_info(scores)").all() as { name: string }[];
    if (columns.length === 0 || columns.some((c) => c.name === "judge")) return;
    this.#transaction(() => {
      this.#sqlite.db.exec("ALTER TABLE scores RENAME TO scores_v1");
      this.#sqlite.db.exec(SCHEMA);
      this.#sqlite.db.exec(
        `INSERT INTO scores (sample_id, condition, scorer, judge, run, value, named_values, valid, reason, call_key, detail)
         SELECT sample_id, condition, scorer, '', run, value, NULL, valid, reason, call_key, detail FROM scores_v1`,
      );
      this.#sqlite.db.exec("DROP TABLE scores_v1");
    });
  }

  /** Returns the stored manifest, or `undefined` for a new store. */
  manifest(): Record<string, unknown> | undefined {
    this.flush();
    const rows = this.#prepare("SELECT key, value FROM manifest").all() as {
      key: string;
      value: string;
    }[];
    if (rows.length === 0) return undefined;
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }

  /** Stores (or overwrites) manifest entries. */
  setManifest(entries: Record<string, unknown>): void {
    this.flush();
    const stmt = this.#prepare("INSERT OR REPLACE INTO manifest (key, value) VALUES (?, ?)");
    this.#transaction(() => {
      for (const [key, value] of Object.entries(entries)) stmt.run(key, JSON.stringify(value));
    });
  }

  /**
   * Adds samples not stored yet, keeping their order (a resumed run, whose samples are all stored, writes none).
   * When the store then holds exactly these samples, in this order, they are read from memory from then on (a
   * run's plan holds them anyway; a run's samples are fixed by its data, which its identity pins).
   */
  putSamples(samples: readonly Sample[]): void {
    this.flush();
    const empty = (this.#prepare("SELECT COUNT(*) AS n FROM samples").get() as { n: number }).n === 0;
    const distinct = new Set(samples.map((s) => s.id)).size === samples.length;
    if (empty && distinct && !this.#unwritten && samples.length > 0) {
      // A new store holds exactly these samples: they are written behind the run's first requests, a slice
      // per timed commit (a killed run's resume writes the rest), and read from memory meanwhile. The last one
      // is written at once, so that a store whose run stopped before the others were is seen to lack them
      // (its positions have a gap: see eachSample).
      const last = samples.length - 1;
      this.#transaction(() => this.#insertSample(samples[last], last));
      this.#heldSamples = samples;
      this.#unwritten = last > 0 ? { samples: samples.slice(0, last), next: 0 } : undefined;
      if (this.#unwritten) this.#timer ??= setTimeout(() => this.#commit(true), WRITE_DELAY_MS);
      return;
    }
    this.#writeAllSamples();
    if (this.#storedAmong(samples) !== samples.length) {
      this.#transaction(() => samples.forEach((s, i) => this.#insertSample(s, i)));
    }
    const ids = this.#prepare("SELECT id FROM samples ORDER BY position").all() as { id: string }[];
    const same = ids.length === samples.length && ids.every((row, i) => row.id === samples[i].id);
    this.#heldSamples = same ? samples : undefined;
  }

  /** How many of `samples` (by id, distinct ones) the store holds, in one query. */
  #storedAmong(samples: readonly Sample[]): number {
    if (samples.length === 0) return 0;
    const row = this.#prepare(
      "SELECT COUNT(*) AS n FROM samples WHERE id IN (SELECT value FROM json_each(?))",
    ).get(JSON.stringify(samples.map((s) => s.id))) as { n: number };
    return Number(row.n);
  }

  /** Returns the stored samples in their original order. */
  samples(): Sample[] {
    return [...this.eachSample()];
  }

  /**
   * Yields the stored samples in their original order, one at a time: those given to {@linkcode putSamples} when
   * they are exactly the stored ones, else as read (they were validated when they were stored, so they are
   * read as written, not validated again).
   */
  *eachSample(): Generator<Sample> {
    this.flush();
    if (this.#heldSamples) {
      yield* this.#heldSamples;
      return;
    }
    const { n, last } = this.#prepare("SELECT COUNT(*) AS n, MAX(position) AS last FROM samples").get() as {
      n: number;
      last: number | null;
    };
    if (last !== null && n < last + 1) {
      throw new InputError(
        { file: this.path },
        `holds ${n} of its ${last + 1} samples: its run stopped before they were all stored; ` +
          "finish it with --resume (the same command) first",
      );
    }
    for (const row of this.#sqlite.pages({ table: "samples", keys: ["position", "id"] })) {
      yield storedSample(String(row.data));
    }
  }

  /**
   * Returns the finished call with this key, if any, as {@linkcode getCall} does, with `request` as its request:
   * the key is the request's address, so the stored request is that one and is not read back (it is a call's
   * largest column). It is the caller's own object, not a copy, and keeps keys whose value is `undefined`,
   * which the stored JSON drops; whatever reads a call's request as stored reads it through `getCall` or
   * `eachCall`. The keys asked for within one turn of the event loop (the lookups of every conversation
   * under way) are looked up together, in one query.
   */
  findCall(key: string, request: StoredCall["request"]): Promise<StoredCall | undefined> {
    const queued = this.#queuedCalls.get(key);
    if (queued) return Promise.resolve(queued);
    if (!this.#lookups) {
      this.#lookups = new Map();
      queueMicrotask(() => this.#lookUpCalls());
    }
    let lookup = this.#lookups.get(key);
    if (!lookup) this.#lookups.set(key, lookup = { ...Promise.withResolvers(), request });
    return lookup.promise;
  }

  /** Answers the lookups gathered by {@linkcode findCall}. */
  #lookUpCalls(): void {
    const lookups = this.#lookups!;
    this.#lookups = undefined;
    try {
      const found = new Map<string, StoredCall>();
      const statement = this.#prepare(
        `SELECT ${CALL_COLUMNS_BUT_REQUEST} FROM calls WHERE key IN (SELECT value FROM json_each(?))`,
      );
      // One `all()`: a turn's lookups are at most the conversations under way, and `iterate()` crosses into
      // SQLite once per row (a replay of 33,735 calls took ~1.5x as long).
      for (const row of statement.all(JSON.stringify([...lookups.keys()]))) {
        const key = String(row.key);
        found.set(key, rowToCall(row as Record<string, unknown>, lookups.get(key)!.request));
      }
      for (const [key, lookup] of lookups) lookup.resolve(this.#queuedCalls.get(key) ?? found.get(key));
    } catch (err) {
      for (const lookup of lookups.values()) lookup.reject(err);
    }
  }

  /** Returns the finished call with this key, if any. */
  getCall(key: string): StoredCall | undefined {
    const queued = this.#queuedCalls.get(key);
    if (queued) return queued;
    const row = this.#prepare("SELECT * FROM calls WHERE key = ?").get(key) as
      | Record<string, unknown>
      | undefined;
    return row ? rowToCall(row) : undefined;
  }

  /** Stores a finished call (a call is immutable: storing the same key twice keeps the first). */
  putCall(call: StoredCall): void {
    if (this.#queuedCalls.has(call.key)) return;
    this.#queuedCalls.set(call.key, call);
    this.#write(
      `INSERT OR IGNORE INTO calls (key, role, model, request, text, finish_reason, usage, attempts, latency_ms, created_at, endpoint, condition, refusal, reasoning)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
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
        call.condition ?? null,
        call.refusal ?? null,
        call.reasoning ?? null,
      ],
      false,
      call,
    );
  }

  /** Returns every stored call, oldest first. */
  calls(): StoredCall[] {
    return [...this.eachCall()];
  }

  /** Yields every stored call, oldest first, one at a time (exports of large runs hold one call at a time). */
  *eachCall(): Generator<StoredCall> {
    this.flush();
    for (const row of this.#prepare(CALLS_IN_ORDER).iterate()) {
      yield rowToCall(row as Record<string, unknown>);
    }
  }

  /**
   * Returns the token use of the stored calls grouped by role, model, condition and whether they went through
   * a batch (`endpoint` `batch:…`), without reading the calls themselves.
   */
  usageTotals(): UsageTotal[] {
    this.flush();
    this.#usage ??= this.#readUsageTotals();
    return this.#usage.map((t) => ({ ...t }));
  }

  /** The usage totals of the stored calls, read in SQL. */
  #readUsageTotals(): UsageTotal[] {
    const rows = this.#prepare(
      `SELECT role, model, condition, COALESCE(endpoint LIKE 'batch:%', 0) AS batch, COUNT(*) AS calls,
         COALESCE(SUM(json_extract(usage, '$.prompt')), 0) AS prompt,
         COALESCE(SUM(json_extract(usage, '$.completion')), 0) AS completion,
         SUM(usage IS NULL) AS without_usage
       FROM calls GROUP BY role, model, condition, batch ORDER BY role, model, condition, batch`,
    ).all() as Record<string, unknown>[];
    return rows.map((r) => ({
      role: String(r.role),
      model: String(r.model),
      condition: r.condition === null ? null : String(r.condition),
      batch: Number(r.batch) === 1,
      calls: Number(r.calls),
      prompt: Number(r.prompt),
      completion: Number(r.completion),
      withoutUsage: Number(r.without_usage),
    }));
  }

  /** Returns the conditions that have outputs, in the order they were first stored. */
  conditions(): string[] {
    this.flush();
    const rows = this.#prepare("SELECT condition FROM outputs GROUP BY condition ORDER BY MIN(rowid)")
      .all() as {
        condition: string;
      }[];
    return rows.map((r) => r.condition);
  }

  /** Returns whether each sample was answered in `condition`, without the answers' texts. */
  outputStatus(condition: string): OutputStatus[] {
    this.flush();
    const rows = this.#prepare(
      "SELECT sample_id, text IS NOT NULL AS answered, error FROM outputs WHERE condition = ? ORDER BY sample_id",
    ).all(condition) as Record<string, unknown>[];
    return rows.map((r) => ({
      sampleId: String(r.sample_id),
      answered: Number(r.answered) === 1,
      error: r.error === null ? null : String(r.error),
    }));
  }

  /**
   * Each output of `condition` (without its text) with how many scores each scorer stored for its sample: what a
   * resumed run checks before it writes or scores an answer again. Two grouped reads joined here (a subquery per
   * output took ~1.5x as long at 33,735 outputs).
   */
  outputScores(condition: string): OutputScores[] {
    this.flush();
    const counts = new Map<string, Record<string, number>>();
    const scored = this.#prepare(
      "SELECT sample_id, scorer, COUNT(*) AS n FROM scores WHERE condition = ? GROUP BY sample_id, scorer",
    ).all(condition) as { sample_id: string; scorer: string; n: number }[];
    for (const r of scored) {
      const own = counts.get(r.sample_id);
      if (own) own[r.scorer] = Number(r.n);
      else counts.set(r.sample_id, { [r.scorer]: Number(r.n) });
    }
    const rows = this.#prepare(
      "SELECT sample_id, call_key, text IS NOT NULL AS answered, error FROM outputs WHERE condition = ?",
    ).all(condition) as Record<string, unknown>[];
    return rows.map((r) => ({
      sampleId: String(r.sample_id),
      callKey: r.call_key === null ? null : String(r.call_key),
      answered: Number(r.answered) === 1,
      error: r.error === null ? null : String(r.error),
      scores: counts.get(String(r.sample_id)) ?? {},
    }));
  }

  /**
   * Counts how the outputs of `condition` ended, each with what its call reported (finish reason, refusal,
   * reply), in SQL: no answer's text is read into JavaScript. An answer without a stored call counts as neither
   * truncated nor refused. A condition held in memory ({@linkcode holdView}) is counted from what was held, by
   * the same rule (`isRefused` of lib/core/refusal.ts).
   */
  outputOutcomeCounts(condition: string): OutputOutcomeCounts {
    const held = this.#heldView(condition);
    if (held) return held.outcomeCounts();
    this.flush();
    const refused = refusedSql("c.");
    const row = this.#prepare(
      "SELECT COUNT(*) AS outputs, " +
        "COALESCE(SUM(o.text IS NOT NULL AND c.finish_reason IS 'length'), 0) AS truncated, " +
        `COALESCE(SUM(o.text IS NOT NULL AND ${refused}), 0) AS refused, ` +
        `COALESCE(SUM(o.text IS NOT NULL AND NOT ${refused} AND ${
          blankSql("o.text")
        }), 0) AS empty_answers ` +
        "FROM outputs o LEFT JOIN calls c ON c.key = o.call_key WHERE o.condition = :condition",
    ).get({ ws: TRIMMED_CHARACTERS, condition }) as Record<string, number>;
    const errors = this.#prepare("SELECT error FROM outputs WHERE condition = ? AND text IS NULL").all(
      condition,
    )
      .map((r) => String((r as { error: string | null }).error ?? ""));
    return {
      outputs: Number(row.outputs),
      truncated: Number(row.truncated),
      refused: Number(row.refused),
      empty_answers: Number(row.empty_answers),
      errors,
    };
  }

  /**
   * Counts, by role and model, how the finished calls of `condition` ended, in SQL (no reply is read into
   * JavaScript): the calls recorded for it (calls recorded without a condition, in stores of earlier versions,
   * count towards `baseline`) and the calls behind its scores (a judging reused from another condition counts in
   * both), each once; the calls of `exceptRoles` (e.g. embeddings) are left out. Rows come in the order their
   * role and model first made a call.
   */
  callEndCounts(condition: string, baseline: string, exceptRoles: readonly string[] = []): CallEndCounts[] {
    // A store whose calls are all of the roles left out (a run with one role) counts none: no scan of the calls.
    if (this.usageTotals().every((t) => exceptRoles.includes(t.role))) return [];
    const refused = refusedSql("");
    const rows = this.#prepare(
      "SELECT role, model, COUNT(*) AS calls, SUM(finish_reason IS 'length') AS truncated, " +
        `SUM(${refused}) AS refused, SUM(NOT ${refused} AND ${blankSql("text")}) AS empty FROM calls ` +
        "WHERE (COALESCE(condition, :baseline) = :condition OR key IN " +
        "(SELECT call_key FROM scores WHERE condition = :condition)) " +
        "AND role NOT IN (SELECT value FROM json_each(:except)) GROUP BY role, model ORDER BY MIN(rowid)",
    ).all({ ws: TRIMMED_CHARACTERS, baseline, condition, except: JSON.stringify(exceptRoles) }) as Record<
      string,
      string | number
    >[];
    return rows.map((r) => ({
      role: String(r.role),
      model: String(r.model),
      calls: Number(r.calls),
      truncated: Number(r.truncated),
      refused: Number(r.refused),
      empty: Number(r.empty),
    }));
  }

  /** Yields every stored output (all conditions, by sample, then condition) one at a time. */
  *eachOutput(): Generator<StoredOutput> {
    this.flush();
    // A page at a time: about twice as fast as a row at a time (at 33,735 rows, 47-59 ms against 90-132 ms).
    for (const row of this.#sqlite.pages({ table: "outputs", keys: ROW_ORDER.outputs })) {
      yield rowToOutput(row);
    }
  }

  /** Yields every stored score (all conditions, by sample, scorer, judge, run, then condition) one at a time. */
  *eachScore(): Generator<StoredScore> {
    for (const row of this.#scoreRows()) yield rowToScore(storedScoreRow(row));
  }

  /**
   * Yields each stored call as the JSON text `JSON.stringify` gives for it, in {@linkcode eachCall}'s order,
   * built from the stored columns (its request and usage are spliced in as stored, never parsed): what the
   * export writes.
   */
  *eachCallJson(): Generator<string> {
    this.flush();
    for (const row of this.#prepare(CALLS_IN_ORDER).iterate()) yield callJson(row as Record<string, unknown>);
  }

  /**
   * Returns up to `limit` calls stored after the call numbered `after` (0: from the first), in the order they
   * were stored, each with its number, its time and key, and its JSON text as {@linkcode eachCallJson} gives it:
   * what an export that follows a run reads as the run goes.
   */
  callsStoredAfter(after: number, limit: number): StoredCallJson[] {
    this.flush();
    const rows = this.#prepare(
      "SELECT rowid AS stored_number, * FROM calls WHERE rowid > ? ORDER BY rowid LIMIT ?",
    ).all(after, limit) as Record<string, unknown>[];
    return rows.map((row) => ({
      number: Number(row.stored_number),
      createdAt: String(row.created_at),
      key: String(row.key),
      json: callJson(row),
    }));
  }

  /**
   * What identifies the store's samples, outputs and scores as a whole, in one read: the store's name (made when
   * it was created), how many rows were written to, replaced in or deleted from those tables since, and a
   * generation drawn afresh by every transaction that changed any (so a store restored from a copy and written
   * to as often again is not taken for the one that was). Counted in the transactions of this class, which every
   * write of this version goes through (a trigger per row cost ~3.4 µs, ~0.35 s of a 33,735-sample run): an
   * earlier version's writes, or a hand edit, are not. `undefined` for a store opened read-only that predates it.
   */
  rowsMark(): RowsMark | undefined {
    this.flush();
    // Samples still to be written behind the run are written now, so that the mark is the one the store keeps.
    this.#writeAllSamples();
    try {
      const row = this.#prepare("SELECT store, rows, generation FROM row_changes WHERE one = 1").get() as
        | { store: string; rows: number; generation: string }
        | undefined;
      return row && { store: String(row.store), rows: Number(row.rows), generation: String(row.generation) };
    } catch {
      return undefined;
    }
  }

  /**
   * What identifies the stored calls as a whole, cheaply, in one read: their number and the key and storage time
   * of the last one stored. Calls are immutable and never deleted, so any call stored since changes it; and a
   * store made afresh for the same run (the same keys) stored its calls at other times.
   */
  callsMark(): CallsMark {
    this.flush();
    const last = "FROM calls ORDER BY rowid DESC LIMIT 1";
    const row = this.#prepare(
      `SELECT (SELECT COUNT(*) FROM calls) AS calls, (SELECT key ${last}) AS key, (SELECT created_at ${last}) AS created_at`,
    ).get() as { calls: number; key: string | null; created_at: string | null };
    return {
      calls: Number(row.calls),
      last: row.key === null ? null : String(row.key),
      lastAt: row.created_at === null ? null : String(row.created_at),
    };
  }

  /** How many calls are stored. */
  callCount(): number {
    this.flush();
    return Number((this.#prepare("SELECT COUNT(*) AS n FROM calls").get() as { n: number }).n);
  }

  /**
   * Yields the stored outputs, in {@linkcode eachOutput}'s order, as the UTF-8 bytes of their lines (newlines
   * included) `JSON.stringify` gives for their records, built and concatenated by SQLite from the stored
   * columns, a page of lines at a time: what the log export writes, with no string built or encoded per line
   * on this side (at 33,735 outputs ~62 ms read, against ~85-150 ms a line at a time). A text with a NUL
   * character is whole here; node:sqlite reads it cut at the NUL.
   */
  *eachOutputLine(): Generator<Uint8Array> {
    this.flush();
    yield* this.#sqlite.linePages({ table: "outputs", line: OUTPUT_LINE, keys: ROW_ORDER.outputs });
  }

  /**
   * Yields each stored score as `JSON.stringify` of {@linkcode eachScore}'s records gives it, in that order,
   * built from the rows' columns (no record per row).
   */
  *eachScoreJson(): Generator<string> {
    for (const row of this.#scoreRows()) yield scoreArrayJson(row);
  }

  /** Yields each logged event as `JSON.stringify` of {@linkcode events}' records gives it, oldest first. */
  *eachEventJson(): Generator<string> {
    this.flush();
    for (const row of this.#sqlite.pages({ table: "events", keys: ["id"] })) {
      const r = row as Record<string, string>;
      yield `{"at":${JSON.stringify(r.at)},"kind":${JSON.stringify(r.kind)},"detail":${r.detail}}`;
    }
  }

  /**
   * Every stored score row, as an array in {@linkcode SCORE_COLUMNS}' order (node:sqlite makes no object of
   * eleven properties per row), in {@linkcode ROW_ORDER}, a page at a time. The rows are paged in the primary
   * key's order (sample, condition, scorer, judge, run), which its index gives without a sort, and each
   * sample's rows are put in the read order here: a page in the read order itself scanned and sorted every row
   * after the page before, so the reads grew with the square of the table (at 33,735 scores ~95 ms against
   * ~56 ms by the key).
   */
  *#scoreRows(): Generator<unknown[]> {
    this.flush();
    // One sample's rows, yielded once the next sample's first row (or the table's end) is read.
    const sample: unknown[][] = [];
    for (const row of this.#sqlite.arrayPages({ table: "scores", columns: SCORE_COLUMNS, keys: SCORE_KEY })) {
      if (sample.length > 0 && sample[0][0] !== row[0]) {
        if (sample.length > 1) sample.sort(compareScoreArrays);
        yield* sample;
        sample.length = 0;
      }
      sample.push(row);
    }
    if (sample.length > 1) sample.sort(compareScoreArrays);
    yield* sample;
  }

  /** Stores the output of a sample in a condition (replacing an earlier failed one on resume). */
  putOutput(output: StoredOutput): void {
    const held = this.#heldView(output.condition);
    if (held) {
      const end = output.callKey === null ? NO_CALL : this.#callEnd(output.callKey);
      if (end && heldAsWritten(output.sampleId, output.error, output.text)) {
        held.putOutput(output.sampleId, output.text, output.error, end);
      } else {
        this.#held = undefined;
      }
    }
    this.#write(
      "INSERT OR REPLACE INTO outputs (sample_id, condition, call_key, text, error, detail) VALUES (?, ?, ?, ?, ?, ?)",
      [
        output.sampleId,
        output.condition,
        output.callKey,
        output.text,
        output.error,
        output.detail ? JSON.stringify(output.detail) : null,
      ],
      true,
    );
  }

  /** Returns the stored outputs, optionally of one condition, ordered by sample, then condition. */
  outputs(condition?: string): StoredOutput[] {
    return this.#rowsOf("outputs", ROW_ORDER.outputs.join(", "), condition).map(rowToOutput);
  }

  /** Stores one score (replacing the same sample/condition/scorer/judge/run on resume). */
  putScore(score: StoredScore): void {
    const values = scoreBinding(score);
    this.#write(INSERT_SCORE, values, true);
    const held = this.#heldView(score.condition);
    if (held && heldAsWritten(score.sampleId, score.scorer, score.judge, score.reason, score.callKey)) {
      held.putScore(score.sampleId, values);
    } else if (held) {
      this.#held = undefined;
    }
  }

  /** The view held of `condition`, if it is the one held. */
  #heldView(condition: string): HeldView | undefined {
    return this.#held?.condition === condition ? this.#held.view : undefined;
  }

  /**
   * Whether the stored call of `key` was truncated or refused, as {@linkcode outputOutcomeCounts} counts it:
   * a queued call by `isRefused` (`undefined` when a text of it would not read back as held), a committed one
   * in SQL, without reading its request; a call not stored is neither.
   */
  #callEnd(key: string): CallEnd | undefined {
    const queued = this.#queuedCalls.get(key);
    if (queued) {
      if (!heldAsWritten(queued.text, queued.refusal ?? null, queued.finishReason)) return undefined;
      return { truncated: queued.finishReason === "length", refused: isRefused(queued) };
    }
    const row = this.#prepare(
      `SELECT finish_reason IS 'length' AS truncated, ${
        refusedSql("")
      } AS refused FROM calls WHERE key = :key`,
    ).get({ key, ws: TRIMMED_CHARACTERS }) as Record<string, number> | undefined;
    return row ? { truncated: Number(row.truncated) === 1, refused: Number(row.refused) === 1 } : NO_CALL;
  }

  /**
   * Holds the output statuses and scores of `condition` in memory from now on, as they are written, when the
   * store has none of it yet (a new condition of a run); returns whether it does. {@linkcode takeHeldView}
   * then gives what {@linkcode outputStatus} and {@linkcode eachScoreOf} would read, without reading it. One
   * condition is held at a time (the memory of one condition's statuses and score rows, not its answers'
   * texts): holding another lets go of the one before, which is then read back. A text SQLite would store
   * otherwise than JavaScript holds it (a NUL, half a surrogate pair) lets go of the condition too.
   */
  holdView(condition: string): boolean {
    if (this.#held?.condition === condition) return true;
    this.#held = undefined;
    this.flush();
    const stored = this.#prepare(
      "SELECT EXISTS (SELECT 1 FROM outputs WHERE condition = ?) OR EXISTS (SELECT 1 FROM scores WHERE condition = ?) AS n",
    ).get(condition, condition) as { n: number };
    if (Number(stored.n) === 1 || !heldAsWritten(condition)) return false;
    this.#held = {
      condition,
      view: new HeldView((row) => rowToScore(storedScoreRow(row), (name) => this.#heldNames.text(name))),
    };
    return true;
  }

  /** Whether the store holds `condition` ({@linkcode holdView}): nothing it stored of it reads back otherwise. */
  holds(condition: string): boolean {
    return this.#heldView(condition) !== undefined;
  }

  /**
   * Returns, and stops holding, what {@linkcode holdView} held of `condition`: the output statuses by sample and
   * the scores by sample, in the order of {@linkcode outputStatus} and {@linkcode eachScoreOf}; `undefined` when
   * nothing is held.
   */
  takeHeldView(
    condition: string,
  ): { outputs: Map<string, OutputStatus>; scores: Map<string, StoredScore[]> } | undefined {
    const held = this.#heldView(condition);
    if (held) this.#held = undefined;
    return held?.view();
  }

  /**
   * Replaces every score of `scorer` in `condition` by `scores` (imported ratings): the old ones are deleted in
   * one transaction, the new ones stored in the commits after it, before this returns.
   */
  replaceScores(scorer: string, condition: string, scores: readonly StoredScore[]): void {
    this.flush();
    if (this.#heldView(condition)) this.#held = undefined;
    this.#writes++;
    this.#transaction(() => {
      const deleted = this.#prepare("DELETE FROM scores WHERE scorer = ? AND condition = ?").run(
        scorer,
        condition,
      );
      this.#rowChanges += Number(deleted.changes);
    });
    for (const score of scores) this.putScore(score);
    this.flush();
  }

  /** Yields the scores of `condition` one at a time, ordered by sample, scorer, judge and run. */
  *eachScoreOf(condition: string): Generator<StoredScore> {
    this.flush();
    // The primary key's index serves this order (condition fixed), so each page is found, not sorted again.
    const keys = ["sample_id", "scorer", "judge", "run"];
    // The condition, scorer and judge names repeat on every row: the scores share one string of each.
    const shared = new SharedValues();
    for (
      const row of this.#sqlite.pages({ table: "scores", where: "condition = ?", params: [condition], keys })
    ) {
      yield rowToScore(row, (name) => shared.text(name));
    }
  }

  /** Returns the outputs of `condition` for the samples `ids` (by sample). */
  outputsOf(condition: string, ids: readonly string[]): StoredOutput[] {
    return this.#rowsOf("outputs", "sample_id", condition, ids).map(rowToOutput);
  }

  /**
   * Returns the scores of `condition` for the samples `ids`, ordered by sample, scorer, judge and run, each as
   * the JSON text `samples.jsonl` lists it ({@linkcode sampleScoreJson}), built from the stored columns.
   */
  sampleScoresOf(condition: string, ids: readonly string[]): { sampleId: string; json: string }[] {
    return this.#rowsOf("scores", "sample_id, scorer, judge, run", condition, ids).map((row) => ({
      sampleId: String(row.sample_id),
      json: sampleScoreJson(row),
    }));
  }

  /** Returns the stored scores, optionally of one condition, ordered by sample, scorer, judge, run, condition. */
  scores(condition?: string): StoredScore[] {
    return this.#rowsOf("scores", ROW_ORDER.scores.join(", "), condition).map((row) => rowToScore(row));
  }

  /**
   * Rows of `table` (`outputs` or `scores`) in `order`: of one condition when given, and of the samples `ids`
   * when given.
   */
  #rowsOf(
    table: "outputs" | "scores",
    order: string,
    condition?: string,
    ids?: readonly string[],
  ): Record<string, unknown>[] {
    this.flush();
    const where: string[] = [];
    const values: string[] = [];
    if (condition !== undefined) {
      where.push("condition = ?");
      values.push(condition);
    }
    if (ids !== undefined) {
      where.push("sample_id IN (SELECT value FROM json_each(?))");
      values.push(JSON.stringify(ids));
    }
    const filter = where.length ? ` WHERE ${where.join(" AND ")}` : "";
    return this.#prepare(`SELECT * FROM ${table}${filter} ORDER BY ${order}`).all(...values) as Record<
      string,
      unknown
    >[];
  }

  /** Appends an event (retry, failure, resume) to the run log. */
  logEvent(kind: string, detail: unknown): void {
    this.#write("INSERT INTO events (at, kind, detail) VALUES (?, ?, ?)", [
      new Date().toISOString(),
      kind,
      JSON.stringify(detail),
    ]);
  }

  /** Returns the logged events (of one `kind`, when given), oldest first. */
  events(kind?: string): { at: string; kind: string; detail: unknown }[] {
    this.flush();
    const rows = kind === undefined
      ? this.#prepare("SELECT at, kind, detail FROM events ORDER BY id").all()
      : this.#prepare("SELECT at, kind, detail FROM events WHERE kind = ? ORDER BY id").all(kind);
    return (rows as Record<string, string>[]).map((r) => ({
      at: r.at,
      kind: r.kind,
      detail: JSON.parse(r.detail),
    }));
  }

  /** Commits what is queued and closes the database. */
  close(): void {
    if (this.#sqlite.db.isOpen) {
      this.flush();
      this.#writeAllSamples();
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#sqlite.close();
  }

  /** Writes every sample not written yet, in one transaction. */
  #writeAllSamples(): void {
    if (this.#unwritten) this.#transaction(() => this.#writeSamples(Infinity));
  }

  /**
   * Runs `fn` in one transaction, which also adds the rows of samples, outputs and scores it changed to the
   * store's count of them and, if it changed any, draws a new generation ({@linkcode rowsMark}).
   */
  #transaction(fn: () => void): void {
    try {
      this.#sqlite.transaction(() => {
        fn();
        if (this.#rowChanges > 0) {
          this.#prepare("UPDATE row_changes SET rows = rows + ?, generation = ? WHERE one = 1")
            .run(this.#rowChanges, crypto.randomUUID());
        }
      });
    } finally {
      this.#rowChanges = 0;
    }
  }
}

/** What identifies a store's calls as a whole ({@linkcode RunStore.callsMark}). */
export interface CallsMark {
  /** How many calls are stored. */
  calls: number;
  /** The key of the last call stored (`null` when there is none). */
  last: string | null;
  /** When the last call was stored (`null` when there is none). */
  lastAt: string | null;
}

/** What identifies a store's samples, outputs and scores as a whole ({@linkcode RunStore.rowsMark}). */
export interface RowsMark {
  /** The store's name, made when it was created. */
  store: string;
  /** How many rows of samples, outputs and scores were written, replaced or deleted since. */
  rows: number;
  /** Drawn afresh by each transaction that changed any of those rows. */
  generation: string;
}

/** How an answer without a stored call ended: neither truncated nor refused (the SQL's LEFT JOIN). */
const NO_CALL: CallEnd = { truncated: false, refused: false };

/**
 * `true` when SQLite stores and reads back each of `texts` as JavaScript holds it: no NUL (read back cut
 * short) and no half of a surrogate pair (stored as U+FFFD).
 */
function heldAsWritten(...texts: (string | null)[]): boolean {
  return texts.every((text) => text === null || (text.isWellFormed() && !text.includes("\u0000")));
}

/** The columns of a score row, in the order {@linkcode RunStore.putScore} binds them. */
const SCORE_COLUMNS = [
  "sample_id",
  "condition",
  "scorer",
  "judge",
  "run",
  "value",
  "named_values",
  "valid",
  "reason",
  "call_key",
  "detail",
] as const;

/** The statement {@linkcode RunStore.putScore} binds a score's values to, in {@linkcode SCORE_COLUMNS}' order. */
const INSERT_SCORE = `INSERT OR REPLACE INTO scores (${SCORE_COLUMNS.join(", ")}) VALUES (${
  SCORE_COLUMNS.map(() => "?").join(", ")
})`;

/** The values {@linkcode RunStore.putScore} binds for `score`, in {@linkcode SCORE_COLUMNS}' order. */
function scoreBinding(score: StoredScore): (string | number | null)[] {
  return [
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
  ];
}

/**
 * A score as a row of `samples.jsonl` lists it once the store holds it ({@linkcode sampleScoreJson} of the row
 * SQLite keeps for the values {@linkcode RunStore.putScore} binds), without storing or reading it.
 */
export function scoreRowJson(score: StoredScore): string {
  return sampleScoreJson(storedScoreRow(scoreBinding(score)));
}

/**
 * The row SQLite stores for the values {@linkcode RunStore.putScore} binds: a NaN becomes NULL and a negative
 * zero a zero, as a REAL column keeps them.
 */
function storedScoreRow(values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  SCORE_COLUMNS.forEach((column, i) => {
    const value = values[i];
    row[column] = typeof value === "number" ? (Number.isNaN(value) ? null : value === 0 ? 0 : value) : value;
  });
  return row;
}

function rowToOutput(r: Record<string, unknown>): StoredOutput {
  return {
    sampleId: String(r.sample_id),
    condition: String(r.condition),
    callKey: r.call_key === null ? null : String(r.call_key),
    text: r.text === null ? null : String(r.text),
    error: r.error === null ? null : String(r.error),
    detail: r.detail === null || r.detail === undefined ? null : JSON.parse(String(r.detail)),
  };
}

/** Returns a stored score from its row; `name` gives the condition, scorer and judge names (e.g. shared ones). */
function rowToScore(r: Record<string, unknown>, name: (text: string) => string = String): StoredScore {
  return {
    sampleId: String(r.sample_id),
    condition: name(String(r.condition)),
    scorer: name(String(r.scorer)),
    judge: r.judge === "" ? null : name(String(r.judge)),
    run: Number(r.run),
    value: r.value === null ? null : Number(r.value),
    values: r.named_values === null ? null : JSON.parse(String(r.named_values)),
    valid: Number(r.valid) === 1,
    reason: r.reason === null ? null : String(r.reason),
    callKey: r.call_key === null ? null : String(r.call_key),
    detail: r.detail === null ? null : JSON.parse(String(r.detail)),
  };
}

/** The columns of a stored call but its request ({@linkcode RunStore.findCall} is given the request). */
const CALL_COLUMNS_BUT_REQUEST =
  "key, role, model, text, finish_reason, usage, attempts, latency_ms, created_at, endpoint, condition, refusal, reasoning";

/** A stored call from its row; `request`, when given, is its request instead of the row's column. */
function rowToCall(row: Record<string, unknown>, request?: StoredCall["request"]): StoredCall {
  return {
    key: String(row.key),
    role: String(row.role),
    model: String(row.model),
    request: request ?? JSON.parse(String(row.request)),
    text: String(row.text),
    finishReason: row.finish_reason === null ? null : String(row.finish_reason),
    usage: row.usage === null ? null : JSON.parse(String(row.usage)),
    attempts: Number(row.attempts),
    latencyMs: Number(row.latency_ms),
    createdAt: String(row.created_at),
    endpoint: row.endpoint === null || row.endpoint === undefined ? null : String(row.endpoint),
    condition: row.condition === null || row.condition === undefined ? null : String(row.condition),
    ...optionalText(row, "refusal"),
    ...optionalText(row, "reasoning"),
  };
}

/** JSON text of a nullable text column: `null`, or the string quoted. */
function jsonText(value: unknown): string {
  return value === null || value === undefined ? "null" : JSON.stringify(String(value));
}

/** JSON text of a nullable column the store holds as JSON text (written by `JSON.stringify`): spliced as is. */
function storedJson(value: unknown): string {
  return value === null || value === undefined ? "null" : String(value);
}

/** `JSON.stringify(rowToCall(row))`, built from the columns. */
function callJson(row: Record<string, unknown>): string {
  const optional = (column: string, key: string) =>
    row[column] === null || row[column] === undefined ? "" : `,"${key}":${jsonText(row[column])}`;
  return `{"key":${jsonText(row.key)},"role":${jsonText(row.role)},"model":${jsonText(row.model)},` +
    `"request":${String(row.request)},"text":${jsonText(row.text)},` +
    `"finishReason":${jsonText(row.finish_reason)},"usage":${storedJson(row.usage)},` +
    `"attempts":${JSON.stringify(Number(row.attempts))},"latencyMs":${
      JSON.stringify(Number(row.latency_ms))
    },` +
    `"createdAt":${jsonText(row.created_at)},"endpoint":${jsonText(row.endpoint)},` +
    `"condition":${jsonText(row.condition)}${optional("refusal", "refusal")}${
      optional("reasoning", "reasoning")
    }}`;
}

/** `JSON.stringify(rowToScore(row))` of a row read as an array in {@linkcode SCORE_COLUMNS}' order. */
function scoreArrayJson(r: readonly unknown[]): string {
  const [sampleId, condition, scorer, judge, run, value, namedValues, valid, reason, callKey, detail] = r;
  return `{"sampleId":${jsonText(sampleId)},"condition":${jsonText(condition)},` +
    `"scorer":${jsonText(scorer)},"judge":${judge === "" ? "null" : jsonText(judge)},` +
    `"run":${JSON.stringify(Number(run))},"value":${
      value === null ? "null" : JSON.stringify(Number(value))
    },` +
    `"values":${storedJson(namedValues)},"valid":${Number(valid) === 1},"reason":${jsonText(reason)},` +
    `"callKey":${jsonText(callKey)},"detail":${storedJson(detail)}}`;
}

/** JSON text stored for a value that may be `null`: `undefined` when it is none (SQL NULL or the text `null`). */
function presentJson(value: unknown): string | undefined {
  return value === null || value === undefined || value === "null" ? undefined : String(value);
}

/**
 * A score as a row of `samples.jsonl` lists it: scorer, judge (when there is one), run, value, named values
 * (when any), validity, reason and detail (when any); built from the columns, the stored JSON spliced as is.
 */
export function sampleScoreJson(r: Record<string, unknown>): string {
  const values = presentJson(r.named_values);
  const detail = presentJson(r.detail);
  return `{"scorer":${jsonText(r.scorer)}${r.judge === "" ? "" : `,"judge":${jsonText(r.judge)}`},` +
    `"run":${JSON.stringify(Number(r.run))},"value":${
      r.value === null ? "null" : JSON.stringify(Number(r.value))
    }${values === undefined ? "" : `,"values":${values}`},"valid":${Number(r.valid) === 1},` +
    `"reason":${jsonText(r.reason)}${detail === undefined ? "" : `,"detail":${detail}`}}`;
}

/** `{ [column]: text }` when the row has the column set (stores of earlier versions lack it: nothing). */
function optionalText(row: Record<string, unknown>, column: string): Record<string, string> {
  const value = row[column];
  return value === null || value === undefined ? {} : { [column]: String(value) };
}

/**
 * A sample as the store wrote it (`JSON.stringify` of a validated sample), in the key order validation gives
 * (`SampleSchema`'s): what `SampleSchema.parse` returns for it, without validating it a second time.
 */
export function storedSample(data: string): Sample {
  const stored = JSON.parse(data) as Sample;
  const sample: Sample = {
    id: stored.id,
    benchmark: stored.benchmark,
    input: stored.input,
    reference: stored.reference,
    conversation: stored.conversation === null
      ? null
      : { id: stored.conversation.id, turn: stored.conversation.turn },
    fields: stored.fields,
    extra: stored.extra,
  };
  if (stored.choices !== undefined) {
    const { labels, options, answer, multiple } = stored.choices;
    sample.choices = { labels, options, answer, multiple };
  }
  return sample;
}
