/**
 * Several OpenAI-compatible endpoints serving one role (vLLM / SGLang replicas, or one API with several keys)
 * behind one provider. Each request goes to the endpoint with the fewest requests in flight among those that
 * may take it now (see {@linkcode Endpoint}: AIMD window, health, 429 pause, reported allowance, RPM/TPM
 * caps); when none may, it waits in arrival order. A 429 is waited out and the request queued again here,
 * without using a retry of the caller; other failures go to the caller's retry loop. The last endpoint in
 * service is never benched, so a set that is wholly down fails requests through the caller's bounded retries
 * rather than holding them forever. The answer records which endpoint served it.
 * @module
 */
import { type EndpointClientSettings, timerDelayMs } from "../transport/client_options.ts";
import {
  Endpoint,
  type EndpointLimits,
  type EndpointProvider,
  type EndpointStatus,
  isThrottle,
  type Send,
} from "./endpoint.ts";
import {
  endpointLabel,
  endpointName,
  OpenAIEmbeddingProvider,
  OpenAIProvider,
  type OpenAIProviderConfig,
} from "../transport/openai.ts";
import type { ModelProfile } from "../transport/profiles.ts";
import { RequestShape } from "../transport/request_shape.ts";
import { estimateChatTokens, loadTokenCounter, type TokenCounter } from "./token_estimate.ts";
import {
  type CallOptions,
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
  DEFAULT_CONCURRENCY,
  ProviderError,
} from "../types.ts";

/** One endpoint of a pool: a base URL and the key it is called with. */
export interface PoolEndpointConfig {
  /** Base URL including the API prefix, e.g. `http://10.0.0.2:8000/v1`. */
  baseURL: string;
  /** API key; registered for redaction and never printed. */
  apiKey?: string;
}

/** Settings of an {@linkcode EndpointPool}; limits apply to each endpoint. */
export interface EndpointPoolConfig extends Omit<EndpointLimits, "concurrency"> {
  /** Model name the servers know. */
  model: string;
  /** The endpoints, at least one; the first names the pool. */
  endpoints: readonly PoolEndpointConfig[];
  /** Request timeout, in milliseconds (default 120 000). */
  timeoutMs?: number;
  /** Requests in flight at once per endpoint (default 8): the start and ceiling of its AIMD window. */
  concurrency?: number;
  /** The model's request profile (default: the shape of a model no profile matches); one shape for every endpoint. */
  profile?: ModelProfile;
  /** Extra body parameters of every chat request (the role's `--role-opt NAME.KEY=VALUE`), checked before. */
  extraBody?: Readonly<Record<string, unknown>>;
  /** Azure OpenAI's `api-version`, sent by every endpoint as a query (with the key in an `api-key` header). */
  apiVersion?: string;
  /**
   * Monotonic milliseconds (default `performance.now`). Tests pass a clock they move themselves; the pool's
   * timers still wait real milliseconds, so such a clock must be moved on for a wait to end.
   */
  clock?: () => number;
}

/** A request waiting for an endpoint. */
interface Waiter {
  tokens: number;
  resolve: (send: Send) => void;
  /** Told when it waits {@linkcode HOLD_NOTICE_MS} or more, with how long and why. */
  onHold?: (note: string, waitMs: number) => void;
}

/** A wait for an endpoint this long or longer (ms) is told to the waiting request (progress shows it). */
export const HOLD_NOTICE_MS = 1000;

/** Returns the names of endpoints, `host/path`, with `#k` added when the same URL comes k times (several keys). */
export function endpointNames(baseURLs: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return baseURLs.map((url) => {
    const name = endpointName(url);
    const k = (seen.get(name) ?? 0) + 1;
    seen.set(name, k);
    return k === 1 ? name : `${name}#${k}`;
  });
}

/** A chat provider that spreads requests over several endpoints of one model. */
export class EndpointPool implements ChatProvider {
  /** Model name sent to the servers. */
  readonly model: string;
  /** `model @ host/path` of the first endpoint, with ` (+K)` for K more. */
  readonly label: string;
  /** Always `false`: this calls real models. */
  readonly offline = false;
  /** The sum of the endpoints' ceilings: the most requests the pool ever has in flight. */
  readonly concurrency: number;
  /** The endpoints, in the order given. */
  protected readonly endpoints: readonly Endpoint[];
  /** The model's request shape, shared by every endpoint (and by batch mode). */
  readonly shape: RequestShape;
  readonly #tokenCap: number | undefined;
  readonly #queue: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  #wakeAt = Infinity;
  /** The endpoint that is ready first when none is ready now (what a wait is for). */
  #wakeEndpoint: Endpoint | undefined;
  /** The wake time last told to a waiting request (told once per wait). */
  #toldWakeAt = Infinity;
  #rotation = 0;
  #countTokens: TokenCounter | undefined;
  readonly #clock: () => number;

  /** Creates the pool; `makeProvider` builds each endpoint's client (chat by default). */
  constructor(
    config: EndpointPoolConfig,
    makeProvider: (config: OpenAIProviderConfig) => EndpointProvider = (c) => new OpenAIProvider(c),
  ) {
    if (config.endpoints.length === 0) throw new RangeError("an endpoint pool needs at least one endpoint");
    const concurrency = config.concurrency ?? DEFAULT_CONCURRENCY;
    const clock = config.clock ?? (() => performance.now());
    this.#clock = clock;
    const names = endpointNames(config.endpoints.map((e) => e.baseURL));
    const shape = new RequestShape(config.profile, {
      extraBody: config.extraBody,
      apiVersion: config.apiVersion,
    });
    this.shape = shape;
    this.model = config.model;
    this.endpoints = config.endpoints.map((endpoint, i) =>
      new Endpoint(
        names[i],
        makeProvider({
          model: config.model,
          baseURL: endpoint.baseURL,
          apiKey: endpoint.apiKey,
          timeoutMs: config.timeoutMs,
          concurrency,
          shape,
          apiVersion: config.apiVersion,
        }),
        { ...config, concurrency },
        clock,
      )
    );
    const more = this.endpoints.length - 1;
    this.label = endpointLabel(config.model, config.endpoints[0].baseURL) + (more > 0 ? ` (+${more})` : "");
    this.concurrency = this.endpoints.reduce((sum, e) => sum + e.window.ceiling, 0);
    this.#tokenCap = config.tpm;
  }

  /** The first endpoint (batch mode submits to one server: a batch lives where it was made). */
  batchEndpoint(): EndpointClientSettings | undefined {
    return this.endpoints[0].provider.batchEndpoint?.();
  }

  /** Snapshots of the endpoints (in flight, window, served, throttled, failed, benched). */
  status(): EndpointStatus[] {
    const now = this.#clock();
    return this.endpoints.map((e) => e.status(now));
  }

  /** Sends one chat request to an endpoint; the answer names the endpoint. Throws {@linkcode ProviderError}. */
  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ChatResponse> {
    const { value, endpoint } = await this.dispatch(
      (count) => estimateChatTokens(request.messages, request.maxTokens, count),
      (send) =>
        send.endpoint.provider.complete(request, {
          signal: options.signal,
          callKey: options.callKey,
          onAdapt: options.onAdapt,
          onHeaders: send.endpoint.onHeaders,
        }),
      options.onHold,
    );
    return { ...value, endpoint: endpoint.name };
  }

  /**
   * Runs `call` on an endpoint once one may take a request of `measure`'s estimated tokens (estimated only
   * when a TPM cap or a server's token headers call for it); 429s are waited out and sent again. `onHold` is
   * told of a wait of {@linkcode HOLD_NOTICE_MS} or more.
   */
  protected async dispatch<T>(
    measure: (count: TokenCounter) => number,
    call: (send: Send) => Promise<T>,
    onHold?: (note: string, waitMs: number) => void,
  ): Promise<{ value: T; endpoint: Endpoint }> {
    const tokens = await this.#estimate(measure);
    let again = false;
    for (;;) {
      const send = this.#takeNow(tokens) ?? await this.#wait(tokens, again, onHold);
      const endpoint = send.endpoint;
      try {
        const value = await call(send);
        endpoint.succeeded(send, this.#clock());
        return { value, endpoint };
      } catch (err) {
        endpoint.failed(send, err, this.#clock(), this.#othersInService(endpoint));
        if (!isThrottle(err)) throw err;
        again = true;
      } finally {
        this.#pump();
      }
    }
  }

  async #estimate(measure: (count: TokenCounter) => number): Promise<number> {
    if (this.#tokenCap === undefined && !this.endpoints.some((e) => e.learned.tokens.known)) return 0;
    this.#countTokens ??= await loadTokenCounter();
    const tokens = measure(this.#countTokens);
    if (this.#tokenCap !== undefined && tokens > this.#tokenCap) {
      throw new ProviderError(
        `request needs about ${tokens} tokens (prompt + max_tokens), more than the tokens-per-minute cap of ${this.#tokenCap}`,
        { retryable: false },
      );
    }
    return tokens;
  }

  /** `true` when another endpoint than `endpoint` is not benched, so benching this one leaves service. */
  #othersInService(endpoint: Endpoint): boolean {
    const now = this.#clock();
    return this.endpoints.some((e) => e !== endpoint && !e.health.benched(now));
  }

  /** Takes an endpoint at once when nobody is waiting and one may take the request. */
  #takeNow(tokens: number): Send | undefined {
    if (this.#queue.length > 0) return undefined;
    const now = this.#clock();
    return this.#pick(now, tokens)?.begin(now, tokens);
  }

  /** Queues the request (at the front when it is being sent again) until an endpoint takes it. */
  #wait(tokens: number, front: boolean, onHold?: (note: string, waitMs: number) => void): Promise<Send> {
    const { promise, resolve } = Promise.withResolvers<Send>();
    const waiter: Waiter = { tokens, resolve, onHold };
    if (front) this.#queue.unshift(waiter);
    else this.#queue.push(waiter);
    this.#pump();
    return promise;
  }

  /** Hands endpoints to waiting requests in arrival order while any may take one; else sets a timer. */
  #pump(): void {
    const now = this.#clock();
    while (this.#queue.length > 0) {
      const waiter = this.#queue[0];
      const endpoint = this.#pick(now, waiter.tokens);
      if (!endpoint) {
        this.#tellHold(waiter, now);
        this.#arm(this.#wakeAt, now);
        return;
      }
      this.#queue.shift();
      waiter.resolve(endpoint.begin(now, waiter.tokens));
    }
    this.#disarm();
  }

  /**
   * Returns the endpoint with the fewest requests in flight among those that may take one now (ties taken in
   * turn), else `undefined` with `#wakeAt` set to the earliest time one may.
   */
  #pick(now: number, tokens: number): Endpoint | undefined {
    const n = this.endpoints.length;
    const start = this.#rotation++ % n;
    let best: Endpoint | undefined;
    let wakeAt = Infinity;
    let wakeEndpoint: Endpoint | undefined;
    for (let k = 0; k < n; k++) {
      const endpoint = this.endpoints[(start + k) % n];
      const at = endpoint.readyAt(now, tokens);
      if (at <= now) {
        if (!best || endpoint.inFlight < best.inFlight) best = endpoint;
      } else if (at < wakeAt) {
        wakeAt = at;
        wakeEndpoint = endpoint;
      }
    }
    this.#wakeAt = wakeAt;
    this.#wakeEndpoint = wakeEndpoint;
    return best;
  }

  /**
   * Tells the request at the head of the queue, once per wake time, that it waits {@linkcode HOLD_NOTICE_MS} or
   * more, for which endpoint and why (a wait only a finishing request ends is not told: a reply is under way).
   */
  #tellHold(waiter: Waiter, now: number): void {
    const wait = this.#wakeAt - now;
    if (!waiter.onHold || wait < HOLD_NOTICE_MS || wait === Infinity || this.#wakeAt === this.#toldWakeAt) {
      return;
    }
    this.#toldWakeAt = this.#wakeAt;
    const endpoint = this.#wakeEndpoint!;
    waiter.onHold(
      `waiting ${(wait / 1000).toFixed(1)}s for ${endpoint.name}: ${endpoint.holdReason(now, waiter.tokens)}`,
      wait,
    );
  }

  /**
   * Pumps again at `at` (a finishing request pumps anyway, so `Infinity` sets nothing). A time further off than a
   * timer holds (a reset weeks away) pumps when the longest timer ends, and arms again from there.
   */
  #arm(at: number, now: number): void {
    if (at === Infinity || (this.#timer !== undefined && this.#timerAt <= at)) return;
    this.#disarm();
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.#pump();
    }, timerDelayMs(Math.max(0, Math.ceil(at - now))));
  }

  #disarm(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }
}

/** An {@linkcode EndpointPool} of embeddings endpoints (`/embeddings`). */
export class EmbeddingEndpointPool extends EndpointPool {
  /** Creates the pool of embeddings endpoints. */
  constructor(config: EndpointPoolConfig) {
    super(config, (c) => new OpenAIEmbeddingProvider(c));
  }

  /** Returns the embedding of `text` from an endpoint. Throws {@linkcode ProviderError}. */
  async embed(text: string, options: CallOptions = {}): Promise<number[]> {
    const { value } = await this.dispatch(
      (count) => count(text),
      (send) =>
        send.endpoint.provider.embed!(text, {
          signal: options.signal,
          callKey: options.callKey,
          onHeaders: send.endpoint.onHeaders,
        }),
      options.onHold,
    );
    return value;
  }
}
