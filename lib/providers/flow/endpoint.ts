/**
 * One endpoint of a pool (a base URL, or a base URL with one of several keys) and everything that decides when
 * it may take another request: its AIMD window, its health, the pause a 429 or `Retry-After` asked for, the
 * allowance its `x-ratelimit-*` headers report, and the user's RPM/TPM caps.
 * @module
 */
import { AimdWindow } from "./adaptive_concurrency.ts";
import { EndpointHealth, type HealthPolicy } from "./endpoint_health.ts";
import type { EndpointCallOptions } from "../transport/openai.ts";
import { SlidingWindowCap } from "./rate_caps.ts";
import { IN_TRANSIT_MS, LearnedBudget } from "./learned_budget.ts";
import { readRateLimitHeaders } from "../transport/rate_limits.ts";
import { type ChatProvider, type ChatRequest, type ChatResponse, ProviderError } from "../types.ts";

/** What an endpoint sends through: an OpenAI-compatible provider that reports each answer's headers. */
export interface EndpointProvider extends ChatProvider {
  /** Answers one request, handing the answer's headers to `options.onHeaders`. */
  complete(request: ChatRequest, options?: EndpointCallOptions): Promise<ChatResponse>;
  /** Embeds `text` (embedding endpoints), handing the answer's headers to `options.onHeaders`. */
  embed?(text: string, options?: EndpointCallOptions): Promise<number[]>;
}

/** Limits of one endpoint. */
export interface EndpointLimits {
  /** Requests in flight at once: the AIMD window's start and ceiling. */
  concurrency: number;
  /** Requests per cap window (per minute unless `capWindowMs` says otherwise). */
  rpm?: number;
  /** Estimated tokens (prompt + max_tokens) per cap window. */
  tpm?: number;
  /** Length of the RPM/TPM window, in milliseconds (default 60 000; tests shorten it). */
  capWindowMs?: number;
  /** When the endpoint is benched. */
  health?: Partial<HealthPolicy>;
  /** Longest pause a 429 or `Retry-After` may impose at once, in milliseconds (default 5 min). */
  maxPauseMs?: number;
}

/** A snapshot of an endpoint for diagnostics and tests. */
export interface EndpointStatus {
  /** `host/path` (with `#k` for the k-th key on the same URL). */
  name: string;
  /** Requests in flight now. */
  inFlight: number;
  /** The AIMD window now. */
  window: number;
  /** Successful answers so far. */
  served: number;
  /** 429 answers so far (each waited out and sent again). */
  throttled: number;
  /** Other failures so far. */
  failed: number;
  /** Times it was benched for failing. */
  benchings: number;
  /** `true` while benched. */
  benched: boolean;
}

/** First pause after a 429 that names no wait; doubles with each 429 in a row, up to a minute. */
const FIRST_THROTTLE_PAUSE_MS = 1000;
const MAX_GUESSED_PAUSE_MS = 60_000;

/** `true` for a 429 that waiting will cure (not an exhausted quota). */
export function isThrottle(err: unknown): err is ProviderError {
  return err instanceof ProviderError && err.status === 429 && err.retryable;
}

/** `true` for failures that say the endpoint is overloaded or down (5xx, timeouts, broken connections). */
function isEndpointFailure(err: unknown): boolean {
  return err instanceof ProviderError && err.retryable && err.status !== 429;
}

/** One request sent to an endpoint, as {@linkcode Endpoint.begin} recorded it. */
export interface Send {
  /** The endpoint it went to. */
  readonly endpoint: Endpoint;
  /** When it was sent (monotonic ms). */
  readonly sentAt: number;
  /** Its estimated tokens (0 when not estimated). */
  readonly tokens: number;
}

/** One endpoint of an {@linkcode EndpointPool}, with the state that gates it. */
export class Endpoint {
  /** Requests in flight now. */
  inFlight = 0;
  /** The AIMD concurrency window. */
  readonly window: AimdWindow;
  /** Benching and probing. */
  readonly health: EndpointHealth;
  /** Allowances the server's `x-ratelimit-*` headers reported. */
  readonly learned = { requests: new LearnedBudget(), tokens: new LearnedBudget() };
  /** The user's caps, when set. */
  readonly caps: { requests?: SlidingWindowCap; tokens?: SlidingWindowCap };
  /** Receives the headers of every answer (rate-limit reports); made once, not per request. */
  readonly onHeaders = (headers: Headers): void => this.#observe(headers);
  #pausedUntil = 0;
  /** The shortest time a request took here (bounds how long a send can be in transit). */
  #fastestMs = Infinity;
  #throttlesInRow = 0;
  readonly #maxPauseMs: number;
  readonly #counts = { served: 0, throttled: 0, failed: 0 };
  readonly #clock: () => number;

  /**
   * Wraps `provider` under `name` with `limits`; `clock` gives monotonic milliseconds (default
   * `performance.now`; tests pass a clock they move themselves).
   */
  constructor(
    readonly name: string,
    readonly provider: EndpointProvider,
    limits: EndpointLimits,
    clock: () => number = () => performance.now(),
  ) {
    this.#clock = clock;
    this.window = new AimdWindow({ ceiling: limits.concurrency });
    this.health = new EndpointHealth(limits.health);
    const windowMs = limits.capWindowMs ?? 60_000;
    this.caps = {
      requests: limits.rpm ? new SlidingWindowCap(limits.rpm, windowMs) : undefined,
      tokens: limits.tpm ? new SlidingWindowCap(limits.tpm, windowMs) : undefined,
    };
    this.#maxPauseMs = limits.maxPauseMs ?? 300_000;
  }

  /**
   * Returns `now` if the endpoint may take a request of `tokens` estimated tokens now; else the time it may
   * (`Infinity` when only a finishing request can free it).
   */
  readyAt(now: number, tokens: number): number {
    if (this.health.benched(now)) return this.health.benchedUntil;
    const allowed = this.health.probing ? 1 : this.window.limit;
    if (this.inFlight >= allowed) return Infinity;
    const reported = Math.max(
      this.learned.requests.readyAt(now, 1),
      this.learned.tokens.readyAt(now, tokens),
    );
    // With nothing in flight no new report is coming: then one request goes to fetch one.
    let at = Math.max(now, this.#pausedUntil, reported === Infinity && this.inFlight === 0 ? now : reported);
    if (this.caps.requests) at = Math.max(at, this.caps.requests.readyAt(now, 1));
    if (this.caps.tokens) at = Math.max(at, this.caps.tokens.readyAt(now, tokens));
    return at;
  }

  /**
   * Says what {@linkcode readyAt} waits for when a request of `tokens` cannot go here at `now` (shown while a
   * run waits a second or more): the limit whose end is the time `readyAt` gives — a bench after failures, a
   * pause after a 429, the server's reported allowance of requests or tokens, or the user's `--rpm` / `--tpm`
   * cap. Off the request path (only when a wait is told).
   */
  holdReason(now: number, tokens: number): string {
    const at = this.readyAt(now, tokens);
    const ends: [number | undefined, string][] = [
      [
        this.health.benched(now) ? this.health.benchedUntil : undefined,
        "benched after failures in a row, probed again then",
      ],
      [this.#pausedUntil, "paused after HTTP 429 (too many requests)"],
      [
        this.learned.requests.readyAt(now, 1),
        "the server's request allowance (x-ratelimit-*-requests) is used up until its reset",
      ],
      [
        this.learned.tokens.readyAt(now, tokens),
        "the server's token allowance (x-ratelimit-*-tokens) is used up until its reset",
      ],
      [this.caps.requests?.readyAt(now, 1), "the --rpm cap"],
      [this.caps.tokens?.readyAt(now, tokens), "the --tpm cap"],
    ];
    return ends.find(([end]) => end === at)?.[1] ?? "its requests in flight";
  }

  /** Takes a request of `tokens` estimated tokens, sent at `now`, and returns the record of it. */
  begin(now: number, tokens: number): Send {
    this.inFlight++;
    this.caps.requests?.record(now, 1);
    this.caps.tokens?.record(now, tokens);
    this.learned.requests.charge(1, now);
    this.learned.tokens.charge(tokens, now);
    return { endpoint: this, sentAt: now, tokens };
  }

  /** Takes the success of `send`, finished at `now`. */
  succeeded(send: Send, now: number): void {
    this.inFlight--;
    this.#counts.served++;
    this.#throttlesInRow = 0;
    this.#fastestMs = Math.min(this.#fastestMs, now - send.sentAt);
    this.health.onSuccess();
    this.window.onSuccess(now - send.sentAt, send.sentAt, now);
  }

  /**
   * Takes the failure `err` of `send`, finished at `now`. A 429 gives back what the request took of the caps
   * (the server did not count it) and pauses the endpoint for as long as the server asked (else as its
   * reported allowance implies, else a guess doubling with each 429 in a row). Other failures may bench it,
   * unless `mayBench` is `false`. Overload (429, 5xx, timeouts) halves the window.
   */
  failed(send: Send, err: unknown, now: number, mayBench: boolean): void {
    this.inFlight--;
    const retryAfterMs = err instanceof ProviderError ? err.retryAfterMs : undefined;
    if (isThrottle(err)) {
      this.#counts.throttled++;
      this.caps.requests?.refund(send.sentAt, 1);
      this.caps.tokens?.refund(send.sentAt, send.tokens);
      this.learned.requests.onRefused();
      this.learned.tokens.onRefused();
      const guess = Math.min(MAX_GUESSED_PAUSE_MS, FIRST_THROTTLE_PAUSE_MS * 2 ** this.#throttlesInRow++);
      this.#pause(now, retryAfterMs ?? this.#reportedWait(now) ?? guess);
      this.window.onOverload(send.sentAt, now);
      return;
    }
    this.#counts.failed++;
    if (retryAfterMs !== undefined) this.#pause(now, retryAfterMs);
    if (isEndpointFailure(err)) {
      this.health.onFailure(now, mayBench);
      this.window.onOverload(send.sentAt, now);
    }
  }

  /** A snapshot for diagnostics and tests. */
  status(now = this.#clock()): EndpointStatus {
    return {
      name: this.name,
      inFlight: this.inFlight,
      window: this.window.limit,
      ...this.#counts,
      benchings: this.health.benchings,
      benched: this.health.benched(now),
    };
  }

  #pause(now: number, ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, now + Math.min(ms, this.#maxPauseMs));
  }

  /** The wait the reported allowances imply for one more request (none when they say nothing definite). */
  #reportedWait(now: number): number | undefined {
    const at = Math.max(this.learned.requests.readyAt(now, 1), this.learned.tokens.readyAt(now, 1));
    return at > now && at < Infinity ? at - now : undefined;
  }

  /** Takes the rate-limit report of an answer. */
  #observe(headers: Headers): void {
    if (!headers.has("x-ratelimit-remaining-requests") && !headers.has("x-ratelimit-remaining-tokens")) {
      return;
    }
    const now = this.#clock();
    const report = readRateLimitHeaders(headers);
    const inTransitMs = Math.min(IN_TRANSIT_MS, this.#fastestMs / 2);
    if (report.requests) this.learned.requests.update(report.requests, now, inTransitMs);
    if (report.tokens) this.learned.tokens.update(report.tokens, now, inTransitMs);
  }
}
