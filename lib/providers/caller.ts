/**
 * The one path every call of every role takes: run store first (content-addressed, so finished calls are
 * never repeated), then the provider under its concurrency limit with bounded, visible retries. Chat requests
 * and embeddings go through the same path.
 * @module
 */
import { GENERATION_KEYS, type TokenUsage } from "../core/chat.ts";
import { hashValue } from "../core/hash.ts";
import type { StoredCall } from "../core/records.ts";
import type { Progress } from "../report/progress.ts";
import type { RunStore } from "../store/run_store.ts";
import { Limiter } from "./flow/limiter.ts";
import { redact } from "./transport/redact.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from "./transport/retry.ts";
import { type Adaptation, type ChatProvider, type ChatRequest, ProviderError, StopError } from "./types.ts";

/** The result of a call: the stored call and whether it came from the store. */
export interface CallResult {
  /** The finished call as stored. */
  call: StoredCall;
  /** `true` when the store already held it (no request was sent). */
  cached: boolean;
}

/** What a caller tells and asks the run beyond its calls. */
export interface CallerHooks {
  /** Told of every call that was sent and stored (spending). */
  onSent?: (call: StoredCall) => void;
  /** Asked before each request is sent: a reason stops it with a {@linkcode StopError}. */
  stop?: () => string | undefined;
}

/** Counters of one caller, for progress and closing notes. */
export interface CallerStats {
  /** Calls answered from the store. */
  cached: number;
  /** Calls that reached the provider and succeeded. */
  sent: number;
  /** Retries waited for. */
  retries: number;
  /** Calls that failed for good. */
  failed: number;
}

/**
 * Returns the content address of a request: model, sampling parameters, messages and repeat number, and the
 * role's extra body parameters when it has any (they change the answer; a request without them keeps the key
 * it always had).
 */
export function callKey(provider: ChatProvider, request: ChatRequest, repeat: number): string {
  const extra = provider.shape?.extraBody ?? {};
  return hashValue({
    model: provider.model,
    params: requestParams(request),
    messages: request.messages,
    repeat,
    // Offline baselines read the sample rather than the messages, so the sample is part of their identity.
    sample: provider.offline ? request.sample?.id : undefined,
    ...(Object.keys(extra).length ? { extra } : {}),
  });
}

/** Returns the content address of an embedding: model and text. */
export function embedKey(provider: ChatProvider, text: string): string {
  return hashValue({ embed: provider.model, text });
}

function requestParams(request: ChatRequest): Record<string, unknown> {
  return Object.fromEntries(GENERATION_KEYS.map((key) => [key, request[key]]));
}

/** What one provider attempt returned, before it is stored. */
interface Reply {
  text: string;
  finishReason?: string;
  refusal?: string;
  reasoning?: string;
  usage?: TokenUsage;
  endpoint?: string;
}

/** Sends the requests of one role (`model`, `judge`, `translator`, `embed`, ...) to one provider through the run store. */
export class Caller {
  /** Counters since creation. */
  readonly stats: CallerStats = { cached: 0, sent: 0, retries: 0, failed: 0 };
  readonly #limiter: Limiter;
  /** Calls being sent, by key: an identical request made meanwhile waits for the same reply. */
  readonly #inFlight = new Map<string, Promise<CallResult>>();
  /** The request shape last written to the manifest (as JSON), to write it again only when it changed. */
  #shapeWritten = "";

  /** Binds a provider to a store under a role; `progress` (optional) shows retry waits. */
  constructor(
    readonly provider: ChatProvider,
    readonly store: RunStore,
    readonly role: string,
    readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
    readonly progress?: Progress,
    readonly hooks: CallerHooks = {},
  ) {
    this.#limiter = new Limiter(provider.concurrency);
  }

  /**
   * Returns the stored call for `request` and `repeat` if there is one, else sends it (waiting for a slot and
   * retrying retryable failures) and stores the result before returning; `condition` (optional) is recorded
   * with a sent call for cost accounting. Throws {@linkcode ProviderError}.
   */
  async call(request: ChatRequest, repeat = 0, condition?: string): Promise<CallResult> {
    const key = callKey(this.provider, request, repeat);
    const result = await this.#through(
      key,
      { messages: request.messages, params: requestParams(request) },
      () =>
        this.provider.complete(request, {
          callKey: key,
          onAdapt: (a) => this.#adapted(a),
          onHold: this.#held,
        }),
      condition,
    );
    if (!result.cached) this.#recordShape();
    return result;
  }

  /**
   * Records in the run's manifest (`request_shapes`, by role and model) how this role's requests were put on
   * the wire, whenever that changed: profile, token-limit parameter, parameters sent and left out, extras,
   * API version and adaptations. Offline stand-ins have no shape.
   */
  #recordShape(): void {
    const record = this.provider.shape?.record();
    if (!record) return;
    const json = JSON.stringify(record);
    if (json === this.#shapeWritten) return;
    this.#shapeWritten = json;
    const shapes = (this.store.manifest()?.request_shapes ?? {}) as Record<string, Record<string, unknown>>;
    this.store.setManifest({
      request_shapes: { ...shapes, [this.role]: { ...shapes[this.role], [this.provider.model]: record } },
    });
  }

  /**
   * Records a change of the request shape the server asked for (a refused parameter): once in the run's event
   * log as `request_adapted`, and as a progress note. The call key is not changed by it: it addresses what the
   * role asked, not how the request was shaped on the wire.
   */
  #adapted(adaptation: Adaptation): void {
    const note =
      `${this.role} ${this.provider.model}: ${adaptation.parameter} refused, now ${adaptation.now}`;
    this.progress?.note(note);
    this.store.logEvent("request_adapted", { role: this.role, model: this.provider.model, ...adaptation });
  }

  /**
   * Shows a wait of a second or more for an endpoint (a rate limit, a pause after a 429, a benched endpoint) as
   * a progress note, so that a run held back never looks stuck.
   */
  readonly #held = (note: string, waitMs: number): void =>
    this.progress?.note(`${this.role} ${note}`, waitMs);

  /** Returns the embedding of `text`, from the store when present, else from the provider (stored). */
  async embed(text: string): Promise<number[]> {
    const provider = this.provider;
    if (!provider.embed) {
      throw new ProviderError(`${provider.label} does not serve embeddings`, { retryable: false });
    }
    const key = embedKey(provider, text);
    const { call } = await this.#through(
      key,
      { messages: [{ role: "user", content: text }], params: { embeddings: true } },
      async () => ({
        text: JSON.stringify(await provider.embed!(text, { callKey: key, onHold: this.#held })),
      }),
    );
    return JSON.parse(call.text);
  }

  /**
   * Joins an identical call already under way (looked up or sent; counted as cached: nothing more is sent), or
   * answers from the store, or sends the request.
   */
  async #through(
    key: string,
    request: StoredCall["request"],
    send: () => Promise<Reply>,
    condition?: string,
  ): Promise<CallResult> {
    const pending = this.#inFlight.get(key);
    if (pending) {
      const { call } = await pending;
      this.stats.cached++;
      return { call, cached: true };
    }
    // Registered before the store is asked, so an identical call made meanwhile waits for this one.
    const answering = this.#storedOrSent(key, request, send, condition);
    this.#inFlight.set(key, answering);
    try {
      return await answering;
    } finally {
      this.#inFlight.delete(key);
    }
  }

  /** Answers from the store (the lookups of calls made together go in one query), or sends the request. */
  async #storedOrSent(
    key: string,
    request: StoredCall["request"],
    send: () => Promise<Reply>,
    condition?: string,
  ): Promise<CallResult> {
    const stored = await this.store.findCall(key, request);
    if (stored) {
      this.stats.cached++;
      return { call: stored, cached: true };
    }
    return await this.#send(key, request, send, condition);
  }

  async #send(
    key: string,
    request: StoredCall["request"],
    send: () => Promise<Reply>,
    condition: string | undefined,
  ): Promise<CallResult> {
    try {
      return await this.#limiter.run(async () => {
        const stop = this.hooks.stop?.();
        if (stop !== undefined) throw new StopError(stop);
        let attempts = 0;
        let started = 0;
        const response = await withRetry(
          (n) => {
            attempts = n;
            started = performance.now();
            return send();
          },
          this.retry,
          (notice) => {
            this.stats.retries++;
            const wait = `${this.role} retry ${notice.attempt}/${notice.maxAttempts - 1} in ${
              (notice.delayMs / 1000).toFixed(1)
            }s after ${notice.reason}`;
            this.progress?.note(wait, notice.delayMs);
            this.store.logEvent("retry", { role: this.role, key, ...notice, reason: redact(notice.reason) });
          },
        );
        const call: StoredCall = {
          key,
          role: this.role,
          model: this.provider.model,
          request,
          text: response.text,
          finishReason: response.finishReason ?? null,
          usage: response.usage ?? null,
          ...(response.refusal ? { refusal: response.refusal } : {}),
          ...(response.reasoning ? { reasoning: response.reasoning } : {}),
          attempts,
          latencyMs: Math.round(performance.now() - started),
          createdAt: new Date().toISOString(),
          endpoint: response.endpoint ?? null,
          condition: condition ?? null,
        };
        this.store.putCall(call);
        this.stats.sent++;
        this.hooks.onSent?.(call);
        return { call, cached: false };
      });
    } catch (err) {
      if (err instanceof StopError) throw err;
      this.stats.failed++;
      const message = redact(err instanceof Error ? err.message : String(err));
      this.store.logEvent("call_failed", { role: this.role, key, error: message });
      throw err instanceof ProviderError ? err : new ProviderError(message, { retryable: false });
    }
  }
}
