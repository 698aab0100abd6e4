/**
 * Batch mode (`--batch`): a chat provider that sends its calls through the Batch API of the server it wraps.
 * `complete()` queues the request and returns a promise; the queue becomes one batch input file when no
 * request has arrived for a short idle time, or earlier when the file would exceed the API's limits. Since the
 * evaluation loop asks turn 2 of a conversation only once turn 1 is answered, and judges only once answers
 * exist, batches form by rounds on their own.
 *
 * Every line's `custom_id` is the call's run store key plus its attempt (`<key>-a1`, `<key>-a2`, ...). The
 * batch ledger in the run store records each submission and its `custom_id`s before the batch is created and
 * the outcome of each line when it ends, so a killed run resumes by waiting for (or adopting, through the
 * submission id in the batch metadata) the batches it had submitted, and never submits a `custom_id` twice.
 * Answers go back through the caller into the run store, with `endpoint` `batch:<id>`.
 * @module
 */
import { ConfigError } from "../../core/errors.ts";
import { BatchLedger, type LineOutcome, type SubmissionStatus } from "../../store/batch_ledger.ts";
import type { RunStore } from "../../store/run_store.ts";
import { type BatchApi, type BatchState, endpointBatchApi, FINAL_BATCH_STATUSES } from "./batch_api.ts";
import {
  type BatchFileLimits,
  batchFileText,
  type BatchInputLine,
  batchInputLine,
  fitsInFile,
  type LineResult,
  OPENAI_BATCH_LIMITS,
  parseBatchResults,
} from "./batch_jsonl.ts";
import { classifyError } from "../transport/classify_error.ts";
import { redact } from "../transport/redact.ts";
import { RequestShape } from "../transport/request_shape.ts";
import {
  type Adaptation,
  type CallOptions,
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
  ProviderError,
  type RequestShaper,
} from "../types.ts";

/**
 * The concurrency a batch provider declares: every request of a round must reach the queue at once, so the
 * caller's limiter must never hold one back.
 */
export const BATCH_CONCURRENCY = 1_000_000;

/** Settings of a {@linkcode BatchProvider}. */
export interface BatchOptions {
  /** How often submitted batches are checked, in milliseconds (default 30 000). */
  pollMs?: number;
  /** How long the queue waits for another request before it becomes a batch, in milliseconds (default 250). */
  idleMs?: number;
  /** Limits of one input file (default the OpenAI Batch API's: 50,000 requests, 200 MB). */
  limits?: BatchFileLimits;
  /** Receives progress notes (batches submitted, waited for, finished). */
  note?: (text: string) => void;
}

interface Waiter {
  promise: Promise<ChatResponse>;
  resolve: (response: ChatResponse) => void;
  reject: (error: ProviderError) => void;
}

interface QueuedLine extends BatchInputLine {
  callKey: string;
  attempt: number;
}

/** Sends chat requests through the Batch API (see the module documentation). */
export class BatchProvider implements ChatProvider {
  /** The wrapped model's name (so call keys are those of unbatched calls). */
  readonly model: string;
  /** The wrapped provider's label (so manifests and tables are those of unbatched runs). */
  readonly label: string;
  /** Always `false`: batches call a real model. */
  readonly offline = false;
  /** Large, see {@linkcode BATCH_CONCURRENCY}. */
  readonly concurrency = BATCH_CONCURRENCY;
  readonly #api: BatchApi;
  readonly #pollMs: number;
  readonly #idleMs: number;
  readonly #limits: BatchFileLimits;
  #note?: (text: string) => void;
  #storePath?: string;
  /** Open while any call is under way; closed when none is. */
  #ledger?: BatchLedger;
  /** Calls of `complete()` not finished yet. */
  #active = 0;
  #queue: QueuedLine[] = [];
  #queueBytes = 0;
  #idleTimer?: ReturnType<typeof setTimeout>;
  /** Callers waiting for a line, by `custom_id`. */
  readonly #waiters = new Map<string, Waiter>();
  /** Submissions this process is creating (recorded, batch not created yet). */
  readonly #submitting = new Set<string>();
  /** Batches being polled: batch id by submission id. */
  readonly #watched = new Map<string, string>();
  /** Submissions of an earlier run being looked for, by submission id. */
  readonly #recovering = new Map<string, Promise<void>>();
  #pollTimer?: ReturnType<typeof setTimeout>;
  #polling = false;
  /** Lines this process queued and not yet delivered: their bodies (to learn from a 400) and whom to tell. */
  readonly #sent = new Map<string, { body: Record<string, unknown>; onAdapt?: (a: Adaptation) => void }>();
  /**
   * The wrapped model's request shape: lines carry the body its live calls would send, and a line refused for
   * a parameter the shape can change or leave out changes it (the next attempt is sent in the new shape).
   */
  readonly shape: RequestShaper;

  /** Batches the calls of `wrapped` (its model, label and request shape are kept) through `api`. */
  constructor(
    wrapped: Pick<ChatProvider, "model" | "label" | "shape">,
    api: BatchApi,
    options: BatchOptions = {},
  ) {
    this.model = wrapped.model;
    this.label = wrapped.label;
    this.shape = wrapped.shape ?? new RequestShape();
    this.#api = api;
    this.#pollMs = options.pollMs ?? 30_000;
    this.#idleMs = options.idleMs ?? 250;
    this.#limits = options.limits ?? OPENAI_BATCH_LIMITS;
    this.#note = options.note;
  }

  /** Keeps its ledger in `store`'s database; `note` (optional) receives progress notes. */
  attach(store: Pick<RunStore, "path">, note?: (text: string) => void): void {
    this.#storePath = store.path;
    if (note) this.#note = note;
  }

  /**
   * Answers `request` through a batch: from the ledger when an earlier run's batch already answered it, by
   * waiting for the batch that carries it, or by queueing it for the next batch. Needs `options.callKey`.
   * Throws {@linkcode ProviderError} when its line failed (retryable for 429/5xx and expired batches).
   */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ChatResponse> {
    const key = options.callKey;
    if (!key) {
      throw new ProviderError("batch mode needs the run store key of every call", { retryable: false });
    }
    if (!this.#storePath) {
      throw new ProviderError(`${this.label}: batch mode needs a run store (attach one)`, {
        retryable: false,
      });
    }
    this.#active++;
    try {
      return await this.#answer(key, request, options.onAdapt);
    } finally {
      if (--this.#active === 0) this.#release();
    }
  }

  async #answer(
    key: string,
    request: ChatRequest,
    onAdapt: ((adaptation: Adaptation) => void) | undefined,
  ): Promise<ChatResponse> {
    for (;;) {
      const line = this.#openLedger().latestLine(key);
      if (line?.state === "done") return JSON.parse(line.response!) as ChatResponse;
      if (line?.state !== "pending") {
        return await this.#enqueue(key, (line?.attempt ?? 0) + 1, request, onAdapt);
      }
      const submission = line.submissionId;
      if (this.#watched.has(submission) || this.#submitting.has(submission)) {
        return await this.#waitFor(line.customId);
      }
      // A line of an earlier run: find its batch (or learn it was never created), then look again.
      await this.#recover(submission);
    }
  }

  #openLedger(): BatchLedger {
    return this.#ledger ??= new BatchLedger(this.#storePath!);
  }

  /** Nothing is under way: stop polling and close the ledger (reopened by the next call). */
  #release(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#pollTimer);
    this.#idleTimer = this.#pollTimer = undefined;
    this.#watched.clear();
    this.#ledger?.close();
    this.#ledger = undefined;
  }

  #waitFor(customId: string): Promise<ChatResponse> {
    let waiter = this.#waiters.get(customId);
    if (!waiter) {
      const { promise, resolve, reject } = Promise.withResolvers<ChatResponse>();
      waiter = { promise, resolve, reject };
      this.#waiters.set(customId, waiter);
    }
    return waiter.promise;
  }

  #enqueue(
    callKey: string,
    attempt: number,
    request: ChatRequest,
    onAdapt: ((adaptation: Adaptation) => void) | undefined,
  ): Promise<ChatResponse> {
    const body = this.shape.body(this.model, request, onAdapt);
    const line = batchInputLine(`${callKey}-a${attempt}`, body);
    if (!fitsInFile(0, 0, line, this.#limits)) {
      const error =
        `request of ${line.bytes} bytes exceeds the batch file limit (${this.#limits.maxBytes} bytes)`;
      return Promise.reject(new ProviderError(error, { retryable: false }));
    }
    if (!fitsInFile(this.#queue.length, this.#queueBytes, line, this.#limits)) this.#flush();
    this.#queue.push({ ...line, callKey, attempt });
    this.#sent.set(line.customId, { body, onAdapt });
    this.#queueBytes += line.bytes;
    const answer = this.#waitFor(line.customId);
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#flush(), this.#idleMs);
    return answer;
  }

  /** Turns the queue into a submission: recorded in the ledger first, then uploaded and created. */
  #flush(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const lines = this.#queue;
    if (lines.length === 0) return;
    this.#queue = [];
    this.#queueBytes = 0;
    const submissionId = crypto.randomUUID();
    try {
      this.#openLedger().addSubmission(
        { id: submissionId, provider: this.label, createdAt: new Date().toISOString() },
        lines.map(({ customId, callKey, attempt }) => ({ customId, callKey, attempt })),
      );
    } catch (err) {
      const message = `could not record the batch in the run store: ${
        err instanceof Error ? err.message : err
      }`;
      const error = new ProviderError(message, { retryable: false });
      for (const { customId } of lines) this.#reject(customId, error);
      return;
    }
    this.#submitting.add(submissionId);
    void this.#submit(submissionId, lines);
  }

  async #submit(submissionId: string, lines: readonly QueuedLine[]): Promise<void> {
    try {
      const fileId = await this.#api.upload(batchFileText(lines), `medeval-${submissionId}.jsonl`);
      const batch = await this.#api.create(fileId, submissionId);
      this.#ledger!.setBatchId(submissionId, batch.id);
      this.#watch(submissionId, batch.id);
      this.#note?.(`${this.label}: batch ${batch.id} submitted (${lines.length} requests)`);
    } catch (err) {
      const error = classifyError(err);
      // The batch may exist despite the error (e.g. a timeout after the server created it): look for it once.
      const found = await this.#api.findBySubmission(submissionId, new Date()).catch(() => undefined);
      if (found) {
        this.#ledger!.setBatchId(submissionId, found.id);
        this.#watch(submissionId, found.id);
      } else this.#abandon(submissionId, `batch submission failed: ${error.message}`, error.retryable);
    } finally {
      this.#submitting.delete(submissionId);
    }
  }

  #recover(submissionId: string): Promise<void> {
    let recovering = this.#recovering.get(submissionId);
    if (!recovering) {
      recovering = this.#adopt(submissionId).finally(() => this.#recovering.delete(submissionId));
      this.#recovering.set(submissionId, recovering);
    }
    return recovering;
  }

  /** Watches an earlier run's submission: by its batch id, else by its metadata; else abandons it. */
  async #adopt(submissionId: string): Promise<void> {
    const submission = this.#openLedger().submission(submissionId)!;
    if (submission.provider !== this.label) {
      this.#abandon(submissionId, `submitted through ${submission.provider}, not ${this.label}`, true);
    } else if (!["submitting", "submitted"].includes(submission.status)) {
      this.#abandon(submissionId, `batch ${submission.batchId} ended without this line`, true);
    } else if (submission.batchId) {
      this.#watch(submissionId, submission.batchId);
    } else {
      const found = await this.#api.findBySubmission(submissionId, new Date(submission.createdAt));
      if (this.#watched.has(submissionId)) return;
      if (found) {
        this.#ledger!.setBatchId(submissionId, found.id);
        this.#watch(submissionId, found.id);
        this.#note?.(`${this.label}: found batch ${found.id} of the interrupted run`);
      } else this.#abandon(submissionId, "the run stopped before this batch was created", true);
    }
  }

  #watch(submissionId: string, batchId: string): void {
    this.#watched.set(submissionId, batchId);
    this.#schedulePoll();
  }

  #schedulePoll(): void {
    if (this.#pollTimer || this.#polling || this.#watched.size === 0) return;
    this.#pollTimer = setTimeout(() => void this.#poll(), this.#pollMs);
  }

  async #poll(): Promise<void> {
    this.#pollTimer = undefined;
    this.#polling = true;
    try {
      const running: BatchState[] = [];
      for (const [submissionId, batchId] of [...this.#watched]) {
        if (!this.#watched.has(submissionId)) continue;
        try {
          const batch = await this.#api.retrieve(batchId);
          if (FINAL_BATCH_STATUSES.has(batch.status)) await this.#settle(submissionId, batch);
          else running.push(batch);
        } catch (err) {
          const error = classifyError(err);
          if (!this.#watched.has(submissionId)) continue;
          if (error.status === 404) {
            this.#abandon(submissionId, `batch ${batchId} is unknown to the server`, true);
          } else {this.#note?.(
              `${this.label}: checking batch ${batchId} failed (${error.message}); trying again`,
            );}
        }
      }
      if (running.length) this.#note?.(waitingNote(this.label, running));
    } finally {
      this.#polling = false;
      this.#schedulePoll();
    }
  }

  /** Downloads a finished batch's files and records and delivers the outcome of each of its pending lines. */
  async #settle(submissionId: string, batch: BatchState): Promise<void> {
    const results = new Map<string, LineResult>();
    for (const fileId of [batch.outputFileId, batch.errorFileId]) {
      if (!fileId) continue;
      for (const [customId, result] of parseBatchResults(await this.#api.download(fileId))) {
        results.set(customId, result);
      }
    }
    if (!this.#watched.has(submissionId)) return;
    const outcomes = new Map<string, LineOutcome>();
    for (const customId of this.#ledger!.pendingIds(submissionId)) {
      const result = results.get(customId);
      outcomes.set(customId, result ? this.#outcome(customId, result, batch.id) : missingOutcome(batch));
    }
    this.#ledger!.finishSubmission(submissionId, batch.status as SubmissionStatus, outcomes);
    this.#watched.delete(submissionId);
    const failed = [...outcomes.values()].filter((o) => o.state === "failed").length;
    this.#note?.(
      `${this.label}: batch ${batch.id} ${batch.status}, ${
        outcomes.size - failed
      } answered, ${failed} failed`,
    );
    this.#deliver(outcomes);
  }

  #outcome(customId: string, result: LineResult, batchId: string): LineOutcome {
    if (result.ok) {
      return {
        state: "done",
        response: JSON.stringify({ ...result.response, endpoint: `batch:${batchId}` }),
      };
    }
    // A line refused for a parameter the shape can change or leave out: the next attempt is sent without it.
    const sent = this.#sent.get(customId);
    const lesson = sent && result.status !== null
      ? this.shape.adapt(sent.body, { status: result.status, message: result.message })
      : undefined;
    // The other lines of the batch refused for the same parameter were built in the same shape: one change.
    if (lesson && lesson !== "outdated") sent!.onAdapt?.({ ...lesson, reason: redact(lesson.reason) });
    return {
      state: "failed",
      error: redact(result.message),
      status: result.status,
      retryable: result.retryable || lesson !== undefined,
    };
  }

  /** Fails every pending line of a submission whose batch was never created or cannot be reached. */
  #abandon(submissionId: string, reason: string, retryable: boolean): void {
    const outcomes = new Map<string, LineOutcome>(
      this.#openLedger().pendingIds(submissionId).map((id) => [
        id,
        { state: "failed", error: redact(reason), status: null, retryable },
      ]),
    );
    this.#ledger!.finishSubmission(submissionId, "abandoned", outcomes);
    this.#watched.delete(submissionId);
    this.#deliver(outcomes);
  }

  /** Resolves or rejects the callers waiting for these lines (after the ledger holds their outcomes). */
  #deliver(outcomes: ReadonlyMap<string, LineOutcome>): void {
    for (const [customId, outcome] of outcomes) {
      this.#sent.delete(customId);
      const waiter = this.#waiters.get(customId);
      if (!waiter) continue;
      this.#waiters.delete(customId);
      if (outcome.state === "done") waiter.resolve(JSON.parse(outcome.response) as ChatResponse);
      else {
        waiter.reject(
          new ProviderError(outcome.error, {
            status: outcome.status ?? undefined,
            retryable: outcome.retryable,
          }),
        );
      }
    }
  }

  #reject(customId: string, error: ProviderError): void {
    this.#sent.delete(customId);
    this.#waiters.get(customId)?.reject(error);
    this.#waiters.delete(customId);
  }
}

/** The outcome of a line a finished batch has no result for. */
function missingOutcome(batch: BatchState): LineOutcome {
  const failed = (error: string, retryable: boolean): LineOutcome => ({
    state: "failed",
    error: redact(error),
    status: null,
    retryable,
  });
  if (batch.status === "expired") {
    return failed(`batch ${batch.id} expired before this request was answered`, true);
  }
  if (batch.status === "cancelled") return failed(`batch ${batch.id} was cancelled`, false);
  if (batch.status === "failed") {
    return failed(`batch ${batch.id} failed${batch.errors ? `: ${batch.errors}` : ""}`, false);
  }
  return failed(`batch ${batch.id} has no result for this request`, true);
}

function waitingNote(label: string, running: readonly BatchState[]): string {
  const total = running.reduce((sum, b) => sum + b.counts.total, 0);
  const finished = running.reduce((sum, b) => sum + b.counts.completed + b.counts.failed, 0);
  const statuses = [...new Set(running.map((b) => b.status))].join("/");
  return `${label}: waiting for ${running.length} batch${
    running.length === 1 ? "" : "es"
  } (${statuses}), ${finished}/${total} requests done`;
}

/** Returns a {@linkcode BatchProvider} over the Batch API of the OpenAI-compatible server `provider` calls. */
export function batchProviderFor(provider: ChatProvider, options: BatchOptions = {}): BatchProvider {
  const endpoint = provider.batchEndpoint?.();
  if (!endpoint) {
    throw new ConfigError(`--batch: ${provider.label} is not one OpenAI-compatible chat endpoint`);
  }
  return new BatchProvider(provider, endpointBatchApi(endpoint), options);
}

/**
 * Replaces every provider of `roles` that calls a model by a {@linkcode BatchProvider}; offline providers and
 * the embeddings role (`embed`) stay as they are.
 */
export function batchRoleProviders(
  roles: { name: string; providers: ChatProvider[] }[],
  options: BatchOptions = {},
): void {
  for (const role of roles) {
    if (role.name === "embed") continue;
    role.providers = role.providers.map((p) => p.offline ? p : batchProviderFor(p, options));
  }
}

/** Attaches every {@linkcode BatchProvider} among `providers` to the run store (and progress notes). */
export function attachBatchProviders(
  providers: Iterable<ChatProvider>,
  store: Pick<RunStore, "path">,
  note?: (text: string) => void,
): void {
  for (const provider of providers) {
    if (provider instanceof BatchProvider) provider.attach(store, note);
  }
}
