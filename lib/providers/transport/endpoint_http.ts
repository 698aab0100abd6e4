/**
 * JSON over HTTP to one OpenAI-compatible endpoint, for the calls a run makes by the thousand (chat completions,
 * embeddings): one `fetch` with a few fixed headers, a timeout, and errors that keep what the server said (status,
 * the error's `code`, `param` and `type`, headers). It addresses and authenticates a call as the npm:openai client
 * does: the path joined onto the base URL's path with the base URL's query kept (and for Azure OpenAI the
 * `api-version` query and an `api-key` header), `Authorization: Bearer KEY`, the `OpenAI-Organization` and
 * `OpenAI-Project` headers from `OPENAI_ORG_ID` and `OPENAI_PROJECT_ID`, and the `Name: value` lines of
 * `OPENAI_CUSTOM_HEADERS`. It costs a fraction of the client's time per call and answers in fewer turns of the
 * event loop, so a finished call's slot is handed on sooner. Batch files, batches and `doctor` keep the client.
 * @module
 */
import { DEFAULT_TIMEOUT_MS, type EndpointClientSettings, timerDelayMs } from "./client_options.ts";
import { DeadlineQueue } from "./deadlines.ts";

/** An error answer (any status outside 2xx), read as the npm:openai client reads it. */
export class EndpointHttpError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The error object's `code` (e.g. `context_length_exceeded`, `unsupported_parameter`), if a string. */
  readonly code: string | undefined;
  /** The error object's `param` (the refused parameter), if a string. */
  readonly param: string | undefined;
  /** The error object's `type`, if a string. */
  readonly type: string | undefined;
  /** The answer's headers (a 429 carries `Retry-After` and `x-ratelimit-*`). */
  readonly headers: Headers;

  /** Reads `body` (the answer's text) for the error object: `{"error": {...}}`, a bare object, or plain text. */
  constructor(status: number, body: string, headers: Headers) {
    const error = errorObject(body);
    const text = typeof error?.message === "string"
      ? error.message
      : error?.message !== undefined
      ? JSON.stringify(error.message)
      : error
      ? JSON.stringify(error)
      : body.trim();
    // As the client words it, so messages read the same whichever path made the call.
    super(text ? `${status} ${text}` : `${status} status code (no body)`);
    this.name = "EndpointHttpError";
    this.status = status;
    this.code = typeof error?.code === "string" ? error.code : undefined;
    this.param = typeof error?.param === "string" ? error.param : undefined;
    this.type = typeof error?.type === "string" ? error.type : undefined;
    this.headers = headers;
  }
}

/** The request took longer than the endpoint's timeout. */
export class EndpointTimeoutError extends Error {
  /** Names the timeout. */
  constructor(timeoutMs: number) {
    super(`request timed out after ${timeoutMs} ms`);
    this.name = "EndpointTimeoutError";
  }
}

/** The caller aborted the request (its signal). */
export class EndpointAbortError extends Error {
  /** Says so. */
  constructor() {
    super("request aborted");
    this.name = "EndpointAbortError";
  }
}

/** The request never got an answer: connection refused, reset, DNS, TLS. */
export class EndpointConnectionError extends Error {
  /** Keeps the network error's message. */
  constructor(message: string) {
    super(message);
    this.name = "EndpointConnectionError";
  }
}

/** The error object of an error answer: `body.error` when it is an object, else the body when it is one. */
function errorObject(body: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const record = parsed as Record<string, unknown>;
  const inner = record.error;
  if (inner && typeof inner === "object" && !Array.isArray(inner)) return inner as Record<string, unknown>;
  return inner == null ? record : { message: inner };
}

/** The headers of `OPENAI_CUSTOM_HEADERS`: one `Name: value` per line (lines without a colon are ignored). */
function customHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text?.split("\n") ?? []) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Per-request options of {@linkcode EndpointHttp.post}. */
export interface PostOptions {
  /** Aborts the request (an {@linkcode EndpointAbortError}). */
  signal?: AbortSignal;
  /** Headers sent besides the endpoint's own. */
  headers?: Record<string, string>;
}

/** A parsed JSON answer and its headers. */
export interface JsonAnswer {
  /** The parsed body. */
  data: unknown;
  /** The answer's headers. */
  headers: Headers;
}

/**
 * Posts JSON bodies to the paths of one endpoint (base URL, key, timeout, Azure's `api-version`); a timeout
 * above 2^31 - 1 ms is capped there.
 */
export class EndpointHttp {
  readonly #base: string;
  readonly #query: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #deadlines: DeadlineQueue;

  /**
   * Prepares the URL prefix, query and headers once; `env` (default: the process environment) supplies
   * `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID` and `OPENAI_CUSTOM_HEADERS`.
   */
  constructor(
    settings: EndpointClientSettings,
    env: (name: string) => string | undefined = (name) => Deno.env.get(name),
  ) {
    const apiKey = settings.apiKey || "not-needed";
    const url = new URL(settings.baseURL);
    const query = new URLSearchParams(url.search);
    if (settings.apiVersion) query.set("api-version", settings.apiVersion);
    url.search = "";
    url.hash = "";
    this.#base = url.href.replace(/\/+$/, "");
    this.#query = query.size ? `?${query}` : "";
    const organization = env("OPENAI_ORG_ID");
    const project = env("OPENAI_PROJECT_ID");
    this.#headers = {
      ...customHeaders(env("OPENAI_CUSTOM_HEADERS")),
      "content-type": "application/json",
      accept: "application/json",
      authorization: `Bearer ${apiKey}`,
      ...(organization ? { "openai-organization": organization } : {}),
      ...(project ? { "openai-project": project } : {}),
      ...(settings.apiVersion ? { "api-key": apiKey } : {}),
    };
    // Capped at 2^31 - 1 ms (about 24.8 days): setTimeout fires at once for a longer delay, which would time
    // out every request the moment it is sent. Flags are refused above the cap before anything is sent.
    this.#timeoutMs = timerDelayMs(settings.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.#deadlines = new DeadlineQueue(this.#timeoutMs);
  }

  /**
   * Posts `body` as JSON to `path` (e.g. `/chat/completions`) and returns the parsed answer. Throws
   * {@linkcode EndpointHttpError} for a non-2xx answer, {@linkcode EndpointTimeoutError},
   * {@linkcode EndpointAbortError}, {@linkcode EndpointConnectionError}, or a `SyntaxError` for a 2xx answer
   * that is not JSON.
   */
  async post(path: string, body: unknown, options: PostOptions = {}): Promise<JsonAnswer> {
    const controller = new AbortController();
    let timedOut = false;
    const deadline = this.#deadlines.start(() => {
      timedOut = true;
      controller.abort();
    });
    const outer = options.signal;
    const abort = () => controller.abort();
    if (outer?.aborted) controller.abort();
    else outer?.addEventListener("abort", abort, { once: true });
    try {
      const response = await fetch(this.#base + path + this.#query, {
        method: "POST",
        headers: options.headers ? { ...this.#headers, ...options.headers } : this.#headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      if (!response.ok) {
        // An error answer keeps its status (and Retry-After) even when its body cannot be read.
        const text = await response.text().catch(() => "");
        throw new EndpointHttpError(response.status, text, response.headers);
      }
      const text = await response.text();
      return { data: JSON.parse(text), headers: response.headers };
    } catch (err) {
      if (err instanceof EndpointHttpError || err instanceof SyntaxError) throw err;
      if (timedOut) throw new EndpointTimeoutError(this.#timeoutMs);
      if (controller.signal.aborted) throw new EndpointAbortError();
      throw new EndpointConnectionError(err instanceof Error ? err.message : String(err));
    } finally {
      this.#deadlines.end(deadline);
      outer?.removeEventListener("abort", abort);
    }
  }
}
