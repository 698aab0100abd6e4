/**
 * The batch ledger: which Batch API submissions a run made, which `custom_id`s each carried and what became
 * of every line. It lives in the run store's SQLite file (its own tables, its own connection: the store runs
 * in WAL mode). A submission and its lines are written before the batch is created, so a run killed at any
 * point finds its batches again and never submits a `custom_id` twice; a finished line keeps its response,
 * so a call whose batch finished before the kill is answered without being sent again.
 * @module
 */
import { SqliteConnection } from "./sqlite.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS batch_submissions (
  id TEXT PRIMARY KEY, provider TEXT NOT NULL, batch_id TEXT, status TEXT NOT NULL, created_at TEXT NOT NULL,
  finished_at TEXT);
CREATE TABLE IF NOT EXISTS batch_lines (
  custom_id TEXT PRIMARY KEY, call_key TEXT NOT NULL, attempt INTEGER NOT NULL, submission_id TEXT NOT NULL,
  state TEXT NOT NULL, response TEXT, error TEXT, status INTEGER, retryable INTEGER);
CREATE INDEX IF NOT EXISTS batch_lines_by_call ON batch_lines (call_key, attempt);
CREATE INDEX IF NOT EXISTS batch_lines_by_submission ON batch_lines (submission_id, state);
`;

/**
 * Where a submission stands: `submitting` (recorded, batch not known to be created yet), `submitted` (batch id
 * known), a batch's final status (`completed`, `failed`, `expired`, `cancelled`), or `abandoned` (the batch was
 * never created, or cannot be reached any more; its lines failed).
 */
export type SubmissionStatus =
  | "submitting"
  | "submitted"
  | "completed"
  | "failed"
  | "expired"
  | "cancelled"
  | "abandoned";

/** One submission: a batch input file and, once created, its batch. */
export interface BatchSubmission {
  /** Submission id, sent as batch metadata so the batch can be found without its id. */
  id: string;
  /** Label of the provider that submitted it (model @ endpoint, no credentials). */
  provider: string;
  /** The batch id, once the server has created the batch. */
  batchId: string | null;
  /** Where it stands. */
  status: SubmissionStatus;
  /** When it was recorded (ISO time). */
  createdAt: string;
}

/** A line to record with its submission. */
export interface NewBatchLine {
  /** The line's `custom_id`: the call's run store key and its attempt. */
  customId: string;
  /** The call's run store key. */
  callKey: string;
  /** 1 for the first submission of the call, 2 for the next, ... */
  attempt: number;
}

/** What became of a line. */
export type LineOutcome =
  | { state: "done"; response: string }
  | { state: "failed"; error: string; status: number | null; retryable: boolean };

/** A recorded line and what became of it (`pending` until its batch ends). */
export interface BatchLine extends NewBatchLine {
  /** The submission it went out in. */
  submissionId: string;
  /** `pending`, `done` or `failed`. */
  state: "pending" | "done" | "failed";
  /** With `done`: the response, as the provider encoded it. */
  response: string | null;
  /** With `failed`: why (free of secrets). */
  error: string | null;
  /** With `failed`: the HTTP status of the line, if it had one. */
  status: number | null;
  /** With `failed`: whether a later attempt may succeed. */
  retryable: boolean;
}

/** The batch tables of one run store, over a connection of their own. */
export class BatchLedger {
  readonly #sqlite: SqliteConnection;

  /** Opens the ledger in the run store at `path` (creating its tables if needed). */
  constructor(readonly path: string) {
    this.#sqlite = new SqliteConnection(path);
    this.#sqlite.db.exec(
      "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;",
    );
    this.#sqlite.db.exec(SCHEMA);
  }

  /** Records a submission and its lines, before anything is sent. Throws if a `custom_id` was recorded before. */
  addSubmission(
    submission: Pick<BatchSubmission, "id" | "provider" | "createdAt">,
    lines: readonly NewBatchLine[],
  ): void {
    const line = this.#sqlite.prepare(
      "INSERT INTO batch_lines (custom_id, call_key, attempt, submission_id, state) VALUES (?, ?, ?, ?, 'pending')",
    );
    this.#sqlite.transaction(() => {
      this.#sqlite.prepare(
        "INSERT INTO batch_submissions (id, provider, status, created_at) VALUES (?, ?, 'submitting', ?)",
      ).run(submission.id, submission.provider, submission.createdAt);
      for (const l of lines) line.run(l.customId, l.callKey, l.attempt, submission.id);
    }, "IMMEDIATE");
  }

  /** Records the batch a submission became. */
  setBatchId(submissionId: string, batchId: string): void {
    this.#sqlite.prepare("UPDATE batch_submissions SET batch_id = ?, status = 'submitted' WHERE id = ?")
      .run(batchId, submissionId);
  }

  /** Returns a submission, if recorded. */
  submission(id: string): BatchSubmission | undefined {
    const row = this.#sqlite.prepare("SELECT * FROM batch_submissions WHERE id = ?").get(id) as
      | Record<string, unknown>
      | undefined;
    return row ? rowToSubmission(row) : undefined;
  }

  /** Returns every submission, oldest first. */
  submissions(): BatchSubmission[] {
    const rows = this.#sqlite.prepare("SELECT * FROM batch_submissions ORDER BY created_at, rowid").all();
    return rows.map((r) => rowToSubmission(r as Record<string, unknown>));
  }

  /** Returns the latest attempt recorded for a call, if any. */
  latestLine(callKey: string): BatchLine | undefined {
    const row = this.#sqlite.prepare(
      "SELECT * FROM batch_lines WHERE call_key = ? ORDER BY attempt DESC LIMIT 1",
    ).get(callKey) as Record<string, unknown> | undefined;
    return row ? rowToLine(row) : undefined;
  }

  /** Returns the `custom_id`s of a submission still waiting for an outcome. */
  pendingIds(submissionId: string): string[] {
    const rows = this.#sqlite.prepare(
      "SELECT custom_id FROM batch_lines WHERE submission_id = ? AND state = 'pending'",
    ).all(submissionId) as { custom_id: string }[];
    return rows.map((r) => r.custom_id);
  }

  /** Returns every recorded `custom_id`, in the order recorded. */
  customIds(): string[] {
    const rows = this.#sqlite.prepare("SELECT custom_id FROM batch_lines ORDER BY rowid").all() as {
      custom_id: string;
    }[];
    return rows.map((r) => r.custom_id);
  }

  /**
   * Closes a submission: records the outcome of each of its lines given in `outcomes` and its final `status`,
   * in one transaction. Outcomes of lines that are not pending in this submission are ignored.
   */
  finishSubmission(
    submissionId: string,
    status: SubmissionStatus,
    outcomes: ReadonlyMap<string, LineOutcome>,
  ): void {
    const done = this.#sqlite.prepare(
      "UPDATE batch_lines SET state = 'done', response = ? WHERE custom_id = ? AND submission_id = ? AND state = 'pending'",
    );
    const failed = this.#sqlite.prepare(
      `UPDATE batch_lines SET state = 'failed', error = ?, status = ?, retryable = ?
       WHERE custom_id = ? AND submission_id = ? AND state = 'pending'`,
    );
    this.#sqlite.transaction(() => {
      for (const [customId, outcome] of outcomes) {
        if (outcome.state === "done") done.run(outcome.response, customId, submissionId);
        else {
          failed.run(outcome.error, outcome.status, outcome.retryable ? 1 : 0, customId, submissionId);
        }
      }
      this.#sqlite.prepare("UPDATE batch_submissions SET status = ?, finished_at = ? WHERE id = ?")
        .run(status, new Date().toISOString(), submissionId);
    }, "IMMEDIATE");
  }

  /** Closes the database connection (the run store's own stays open). */
  close(): void {
    this.#sqlite.close();
  }
}

function rowToSubmission(row: Record<string, unknown>): BatchSubmission {
  return {
    id: String(row.id),
    provider: String(row.provider),
    batchId: row.batch_id === null ? null : String(row.batch_id),
    status: String(row.status) as SubmissionStatus,
    createdAt: String(row.created_at),
  };
}

function rowToLine(row: Record<string, unknown>): BatchLine {
  return {
    customId: String(row.custom_id),
    callKey: String(row.call_key),
    attempt: Number(row.attempt),
    submissionId: String(row.submission_id),
    state: String(row.state) as BatchLine["state"],
    response: row.response === null ? null : String(row.response),
    error: row.error === null ? null : String(row.error),
    status: row.status === null ? null : Number(row.status),
    retryable: Number(row.retryable) === 1,
  };
}
