/**
 * A local OpenAI-compatible server for tests and benchmarks: deterministic answers, scripted latency and
 * faults (429 with Retry-After, 500, hang, malformed body), and the Batch API (`/v1/files`, `/v1/batches`):
 * each line of a batch is answered by the same reply function as a chat completion once the batch's delay has
 * passed, with optional scripted per-line failures, finish reasons and usage, batch outcomes (an expired or
 * cancelled batch may have answered some lines), held batches, and OpenAI's one-model-per-file rule. It
 * listens on 127.0.0.1 only.
 *
 * Run by hand: `deno run -A tests/fake_server.ts --port 8000 --latency 100`.
 * @module
 */
import { sha256Hex } from "../lib/core/hash.ts";

/** What the fake does instead of answering normally. */
export interface FakeFault {
  /** Answer with this HTTP status and an OpenAI-style error body. */
  status?: number;
  /** With `status`, the error message (default `scripted fault <status>`). */
  message?: string;
  /** With `status`, send `Retry-After` (seconds). */
  retryAfterSeconds?: number;
  /** Do not answer for 60 s (or until the server closes): the client's timeout must fire first. */
  hang?: boolean;
  /** Answer 200 with a body that is not valid JSON. */
  malformed?: boolean;
}

/** The request body of a chat completion as the fake sees it. */
export interface FakeChatBody {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  seed?: number;
  response_format?: { type: string };
  /** Any other body field (e.g. `reasoning_effort`), as sent. */
  [field: string]: unknown;
}

/** One request the fake received, in arrival order. */
export interface FakeRequestRecord {
  /** 0-based arrival index. */
  index: number;
  /** URL path, e.g. `/v1/chat/completions`. */
  path: string;
  /** Parsed JSON body (or `null`). */
  body: unknown;
  /** The `x-medeval-call` header (the run store key of the call), if sent. */
  callKey: string | null;
  /** The `authorization` header as received. */
  authorization: string | null;
  /** The `api-key` header as received (Azure OpenAI's way of sending the key). */
  apiKey: string | null;
  /** The query string as received (e.g. `?api-version=2024-10-21`), `""` when none. */
  query: string;
  /** HTTP status the fake answered with, or `null` while pending or hung. */
  status: number | null;
  /** The client's port: one per connection, so requests on the same connection share it. */
  remotePort: number | null;
  /** How a chat completion the fake answered ended, when `answerOutcome` made it other than `stop`. */
  outcome?: FakeAnswerOutcome;
}

/**
 * How the fake ends a chat completion other than normally: `length` (the reply cut to half its text,
 * `finish_reason: "length"`), `content_filter` (empty content, `finish_reason: "content_filter"`), `refusal`
 * (a `refusal` field with `content: null`, `finish_reason: "stop"`).
 */
export type FakeAnswerOutcome = "length" | "content_filter" | "refusal";

/**
 * Returns `true` for about one request in `k`, deterministically by its last user message (the same request
 * always gets the same answer, whatever order requests arrive in): a truncation rate of 1/k.
 */
export function everyKth(k: number, body: FakeChatBody): boolean {
  const last = [...body.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  return parseInt(sha256Hex(`every:${last}`).slice(0, 8), 16) % k === 0;
}

/** Options of {@linkcode startFakeServer}. */
export interface FakeServerOptions {
  /** Delay before every answer, in milliseconds (default 0). */
  latencyMs?: number;
  /**
   * Keep `latencyMs` on average, counted from the request's arrival: each delay is shortened by how late the
   * fake's timers have fired lately ({@linkcode TimerLateness}; on Deno 2.9 ~1.5 ms per timer, more under load),
   * so that an answer may come early, by at most {@linkcode TimerLateness.MAX_LATE_MS} (when its timer fires
   * on time after others were late). Off by default: an answer then comes no sooner
   * than `latencyMs` after its request was read, and later by the timers' lateness. The benchmarks' fake
   * (bench/fake_server_process.ts) turns it on, so that a run's share of the bound is not also the fake's delay.
   */
  onTimeLatency?: boolean;
  /** Port (default: any free port). */
  port?: number;
  /** Decides per request whether to misbehave. */
  fault?: (request: FakeRequestRecord) => FakeFault | undefined;
  /** Produces the reply text of a chat completion (default: {@linkcode defaultFakeReply}). */
  reply?: (body: FakeChatBody) => string;
  /** Extra headers of every answer (e.g. `x-ratelimit-*`), decided per request after its fault. */
  headers?: (request: FakeRequestRecord) => Record<string, string>;
  /**
   * Answer chat completions as OpenAI's reasoning models (o-series, gpt-5) do, for the models this accepts:
   * 400 `unsupported_parameter` for `max_tokens`, then 400 `unsupported_value` for a `temperature` other than 1,
   * with OpenAI's messages, `param` and `code` (default: no model).
   */
  reasoningModel?: (model: string) => boolean;
  /**
   * Answer 400 for a request whose messages are longer than `tokens` (counted as characters / 4, rounded up), as
   * OpenAI (`context_length_exceeded`) or vLLM ("This model's maximum context length is N tokens") does;
   * `models` (default every model) picks the models that have the limit.
   */
  contextLimit?: { tokens: number; style: "openai" | "vllm"; models?: (model: string) => boolean };
  /** Decides per chat completion whether it ends other than normally (default: every answer ends `stop`). */
  answerOutcome?: (body: FakeChatBody) => FakeAnswerOutcome | undefined;
  /**
   * Puts reasoning in the message apart from the content, in the field vLLM/SGLang/DeepSeek
   * (`reasoning_content`) or others (`reasoning`) use; `text` returns it per request (`undefined`: none).
   */
  reasoning?: { field: "reasoning_content" | "reasoning"; text: (body: FakeChatBody) => string | undefined };
  /** Leave `usage` out of chat completions, as Ollama and llama.cpp sometimes do (default `false`). */
  omitUsage?: boolean;
  /**
   * Ignore `seed`, as Anthropic's endpoint and some local servers do: every reply ends with the request's
   * arrival index, so two identical requests get different replies (default `false`: the same request always
   * gets the same reply).
   */
  ignoreSeed?: boolean;
  /**
   * What the fake does with `response_format: {type: "json_object"}` (default: nothing, the reply as `reply`
   * gives it): `honoured` wraps a reply that is not JSON as `{"answer": …}`; `ignored` leaves it as is (Anthropic);
   * `refused` answers 400 naming `response_format`.
   */
  jsonMode?: "honoured" | "ignored" | "refused";
  /**
   * Answer 400 `unsupported_parameter` (OpenAI's wording, `param` set) for each body field this returns for the
   * request's model, e.g. `() => ["seed"]` (default: none).
   */
  rejectParameters?: (model: string) => readonly string[];
  /**
   * Serve as Azure OpenAI does: chat completions only at `/openai/deployments/<deployment>/chat/completions`
   * with an `api-version` query (404 otherwise), and the key in an `api-key` header (401 otherwise).
   */
  azure?: { deployment: string; apiKey: string };
  /** The model ids `/models` lists (default `["fake-model"]`). */
  models?: readonly string[];
  /** Keep request bodies in {@linkcode FakeServer.requests} (default `true`; benchmarks turn it off). */
  keepBodies?: boolean;
  /** How long a batch stays `in_progress` after it is created, in milliseconds (default 0). */
  batchDelayMs?: number;
  /** Decides per batch line whether it fails (`status` and `message` are used; the line goes to the error file). */
  batchLineFault?: (line: FakeBatchLine) => FakeFault | undefined;
  /**
   * Decides per batch whether it ends `failed`, `expired` or `cancelled` instead of `completed` (no lines
   * answered, unless `batchLineAnswered` says otherwise).
   */
  batchOutcome?: (batch: FakeBatch) => "failed" | "expired" | "cancelled" | undefined;
  /**
   * With a `batchOutcome` of `expired` or `cancelled`: whether a line was answered before the batch ended
   * (without this option none was, and no file is written; a `failed` batch never answers a line). Answered lines go to the output file (or, with a
   * `batchLineFault`, the error file); the unanswered lines of an expired batch go to the error file as
   * `batch_expired`, as OpenAI writes them; those of a cancelled batch are in neither file.
   */
  batchLineAnswered?: (line: FakeBatchLine) => boolean;
  /** Decides per answered batch line its `finish_reason` and `usage` (default `stop`, 10 and 5 tokens). */
  batchLineCompletion?: (line: FakeBatchLine) => FakeLineCompletion | undefined;
  /**
   * Fail a batch whose input file names more than one model, as OpenAI does: the batch ends `failed` at
   * creation with a `mismatched_model` error naming the first line of another model (default off).
   */
  batchOneModel?: boolean;
  /**
   * Keeps a batch `in_progress` past its delay while this returns `true` (e.g. until a test has killed the
   * process that created it).
   */
  batchHold?: (batch: FakeBatch) => boolean;
  /**
   * Called once per batch created, after it is recorded and before its creation is answered; the answer waits
   * until the returned promise (if any) settles or the server closes.
   */
  batchCreated?: (batch: FakeBatch) => Promise<void> | void;
}

/** How the fake completes one batch line. */
export interface FakeLineCompletion {
  /** The choice's `finish_reason` (default `stop`). */
  finishReason?: string;
  /** The completion's `usage` (default 10 prompt and 5 completion tokens); `null` leaves it out. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

/** One request line of a batch input file, as the fake processes it. */
export interface FakeBatchLine {
  /** The batch it belongs to. */
  batchId: string;
  /** Its `custom_id`. */
  customId: string;
  /** 0-based position in its file. */
  index: number;
  /** Its chat completion body. */
  body: FakeChatBody;
}

/** A batch the fake created. */
export interface FakeBatch {
  /** Batch id, e.g. `batch_0`. */
  id: string;
  /** 0-based creation order. */
  index: number;
  /** The uploaded input file. */
  inputFileId: string;
  /** The `custom_id`s of its lines, in file order. */
  customIds: string[];
  /** The metadata it was created with. */
  metadata: Record<string, string>;
  /** `in_progress` until its delay has passed, then `completed` (or the scripted outcome). */
  status: string;
  /** Creation time, `Date.now()` milliseconds. */
  createdAtMs: number;
  /** Its output file, once completed. */
  outputFileId?: string;
  /** Its error file, once completed with failed lines. */
  errorFileId?: string;
  /** Lines answered and failed, once finished. */
  counts: { total: number; completed: number; failed: number };
  /** The `custom_id`s its output file answers (with status 200), once finished. */
  answeredCustomIds: string[];
  /** Validation errors of a batch that failed at creation (e.g. `mismatched_model`). */
  errors?: { code: string; message: string; line: number }[];
}

/** A running fake server. */
export interface FakeServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every request received so far. */
  requests: FakeRequestRecord[];
  /** Every batch created so far, in creation order. */
  batches: FakeBatch[];
  /** Every `custom_id` of every batch created so far, in submission order (repeats included). */
  submittedCustomIds: string[];
  /** Stops the server and waits until it has closed. */
  close(): Promise<void>;
}

/** Returns the default deterministic reply: a short answer derived from the last user message. */
export function defaultFakeReply(body: FakeChatBody): string {
  const last = [...body.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  return `Fake answer ${sha256Hex(last).slice(0, 8)} to: ${last.slice(0, 60)}`;
}

/** Returns a deterministic unit-length embedding (64 dims) of `text` from hashed character trigrams. */
export function fakeEmbedding(text: string): number[] {
  const vec = new Array<number>(64).fill(0);
  const chars = [...text];
  for (let i = 0; i + 2 < chars.length + 2; i++) {
    const gram = chars.slice(i, i + 3).join("");
    const h = parseInt(sha256Hex(gram).slice(0, 8), 16);
    vec[h % 64] += (h & 1) ? 1 : -1;
  }
  const norm = Math.hypot(...vec) || 1;
  return vec.map((v) => v / norm);
}

/** Starts the fake server on 127.0.0.1. */
export function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const requests: FakeRequestRecord[] = [];
  const reply = options.reply ?? defaultFakeReply;
  const controller = new AbortController();
  const batchApi = new FakeBatchApi(options, reply, controller.signal);
  const lateness = options.onTimeLatency ? new TimerLateness() : undefined;
  const { promise: listening, resolve } = Promise.withResolvers<number>();

  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      signal: controller.signal,
      onListen: ({ port }) => resolve(port),
    },
    async (req, info) => {
      const arrived = performance.now();
      const url = new URL(req.url);
      const path = url.pathname;
      const upload = isMultipart(req) ? await readUpload(req) : undefined;
      let body: unknown = upload
        ? { purpose: upload.purpose, filename: upload.filename, bytes: upload.bytes }
        : null;
      try {
        if (!upload) body = req.method === "POST" ? await req.json() : null;
      } catch {
        body = null;
      }
      const record: FakeRequestRecord = {
        index: requests.length,
        path,
        body,
        callKey: req.headers.get("x-medeval-call"),
        authorization: req.headers.get("authorization"),
        apiKey: req.headers.get("api-key"),
        query: url.search,
        status: null,
        remotePort: info.remoteAddr.transport === "tcp" ? info.remoteAddr.port : null,
      };
      requests.push(record);
      const fault = options.fault?.(record);
      if (fault?.hang) {
        // A hang is bounded so the fake never outlives its test: it ends when the server closes or after 60 s.
        await abortableDelay(60_000, controller.signal);
        return new Response(null, { status: 504 });
      }
      if (options.latencyMs && lateness) {
        await lateness.delay(arrived + options.latencyMs - performance.now(), controller.signal);
      } else if (options.latencyMs) {
        await abortableDelay(options.latencyMs, controller.signal);
      }
      const extra = options.headers?.(record) ?? {};
      if (options.keepBodies === false) record.body = null;
      const respond = (status: number, payload: string, headers: Record<string, string> = {}) => {
        record.status = status;
        return new Response(payload, {
          status,
          headers: { "content-type": "application/json", ...extra, ...headers },
        });
      };
      if (fault?.status) {
        const headers: Record<string, string> = {};
        if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
        return respond(
          fault.status,
          JSON.stringify({
            error: { message: fault.message ?? `scripted fault ${fault.status}`, type: "fake_error" },
          }),
          headers,
        );
      }
      if (fault?.malformed) return respond(200, '{"id": "x", "choices": [ {"message": ');
      const batchAnswer = await batchApi.route(req.method, path, body, upload, url.searchParams);
      if (batchAnswer) return respond(batchAnswer.status, batchAnswer.payload, batchAnswer.headers);
      if (path.endsWith("/models")) {
        return respond(
          200,
          JSON.stringify({
            object: "list",
            data: (options.models ?? ["fake-model"]).map((id) => ({ id, object: "model" })),
          }),
        );
      }
      if (path.endsWith("/embeddings")) {
        const input = (body as { input: string | string[] }).input;
        const inputs = Array.isArray(input) ? input : [input];
        return respond(
          200,
          JSON.stringify({
            object: "list",
            data: inputs.map((text, index) => ({
              object: "embedding",
              index,
              embedding: fakeEmbedding(text),
            })),
            model: (body as { model: string }).model,
            usage: { prompt_tokens: 0, total_tokens: 0 },
          }),
        );
      }
      if (path.endsWith("/chat/completions")) {
        const chat = body as FakeChatBody;
        const azure = azureRefusal(options, path, url.searchParams, record.apiKey);
        if (azure) return respond(azure.status, JSON.stringify({ error: azure.error }));
        const refusal = reasoningRefusal(chat, options) ?? parameterRefusal(chat, options) ??
          contextRefusal(chat, options);
        if (refusal) return respond(400, JSON.stringify({ error: refusal }));
        const outcome = options.answerOutcome?.(chat);
        if (outcome) record.outcome = outcome;
        const reasoning = options.reasoning?.text(chat);
        const text = shapeReply(reply(chat), chat, options, record.index);
        return respond(
          200,
          JSON.stringify({
            id: `chatcmpl-${record.index}`,
            object: "chat.completion",
            created: 0,
            model: chat.model,
            choices: [{
              index: 0,
              message: {
                role: "assistant",
                ...answerMessage(text, outcome),
                ...(reasoning !== undefined ? { [options.reasoning!.field]: reasoning } : {}),
              },
              finish_reason: outcome === "length" || outcome === "content_filter" ? outcome : "stop",
            }],
            ...(options.omitUsage
              ? {}
              : { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }),
          }),
        );
      }
      return respond(404, JSON.stringify({ error: { message: `no route ${path}` } }));
    },
  );

  return listening.then((port) => ({
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    batches: batchApi.batches,
    submittedCustomIds: batchApi.submittedCustomIds,
    close: async () => {
      controller.abort();
      await server.finished;
    },
  }));
}

/** The reply text as the fake's seed and JSON-mode options make it. */
function shapeReply(text: string, chat: FakeChatBody, options: FakeServerOptions, index: number): string {
  let shaped = text;
  if (options.jsonMode === "honoured" && chat.response_format?.type === "json_object") {
    try {
      JSON.parse(shaped);
    } catch {
      shaped = JSON.stringify({ answer: shaped });
    }
  }
  return options.ignoreSeed ? `${shaped} #${index}` : shaped;
}

/** Azure OpenAI's 404 (wrong path or no `api-version`) or 401 (no or wrong `api-key`), or `undefined`. */
function azureRefusal(
  options: FakeServerOptions,
  path: string,
  query: URLSearchParams,
  apiKey: string | null,
): { status: number; error: FakeErrorObject } | undefined {
  const azure = options.azure;
  if (!azure) return undefined;
  if (path !== `/openai/deployments/${azure.deployment}/chat/completions` || !query.get("api-version")) {
    return {
      status: 404,
      error: { message: "Resource not found", type: "invalid_request_error", param: null, code: "404" },
    };
  }
  if (apiKey !== azure.apiKey) {
    return {
      status: 401,
      error: {
        message: "Access denied due to invalid subscription key or wrong API endpoint.",
        type: "invalid_request_error",
        param: null,
        code: "401",
      },
    };
  }
  return undefined;
}

/** OpenAI's 400 for a body field the fake's `rejectParameters` or `jsonMode: "refused"` names, or `undefined`. */
function parameterRefusal(chat: FakeChatBody, options: FakeServerOptions): FakeErrorObject | undefined {
  const rejected = [...options.rejectParameters?.(chat.model) ?? []];
  if (options.jsonMode === "refused") rejected.push("response_format");
  const parameter = rejected.find((name) => name in chat);
  if (!parameter) return undefined;
  return {
    message: `Unsupported parameter: '${parameter}' is not supported with this model.`,
    type: "invalid_request_error",
    param: parameter,
    code: "unsupported_parameter",
  };
}

/** The content (and refusal) of a chat completion's message that ends as `outcome` says. */
function answerMessage(
  text: string,
  outcome: FakeAnswerOutcome | undefined,
): { content: string | null; refusal?: string } {
  if (outcome === "length") return { content: text.slice(0, Math.floor(text.length / 2)) };
  if (outcome === "content_filter") return { content: "" };
  if (outcome === "refusal") return { content: null, refusal: "I can't help with that request." };
  return { content: text };
}

/** An OpenAI-style error object. */
interface FakeErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | number | null;
}

/** Returns OpenAI's 400 for a parameter a reasoning model does not take, or `undefined`. */
function reasoningRefusal(chat: FakeChatBody, options: FakeServerOptions): FakeErrorObject | undefined {
  if (!options.reasoningModel?.(chat.model)) return undefined;
  if (chat.max_tokens !== undefined) {
    return {
      message: "Unsupported parameter: 'max_tokens' is not supported with this model. " +
        "Use 'max_completion_tokens' instead.",
      type: "invalid_request_error",
      param: "max_tokens",
      code: "unsupported_parameter",
    };
  }
  if (chat.temperature !== undefined && chat.temperature !== 1) {
    return {
      message: `Unsupported value: 'temperature' does not support ${chat.temperature} with this model. ` +
        "Only the default (1) value is supported.",
      type: "invalid_request_error",
      param: "temperature",
      code: "unsupported_value",
    };
  }
  return undefined;
}

/** Returns the 400 of a request longer than the fake's context limit (OpenAI's or vLLM's), or `undefined`. */
function contextRefusal(chat: FakeChatBody, options: FakeServerOptions): FakeErrorObject | undefined {
  const limit = options.contextLimit;
  if (!limit || (limit.models && !limit.models(chat.model))) return undefined;
  const used = Math.ceil(chat.messages.reduce((sum, m) => sum + m.content.length, 0) / 4);
  if (used <= limit.tokens) return undefined;
  const stated = `This model's maximum context length is ${limit.tokens} tokens.`;
  return limit.style === "openai"
    ? {
      message:
        `${stated} However, your messages resulted in ${used} tokens. Please reduce the length of the ` +
        "messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    }
    : {
      message: `${stated} However, you requested ${used} tokens (${used} in the messages, 0 in the ` +
        "completion). Please reduce the length of the messages or completion.",
      type: "BadRequestError",
      param: null,
      code: 400,
    };
}

/** A file uploaded to the fake (`POST /v1/files`, multipart). */
interface FakeUpload {
  purpose: string;
  filename: string;
  bytes: number;
  content: string;
}

function isMultipart(req: Request): boolean {
  return req.method === "POST" && (req.headers.get("content-type") ?? "").startsWith("multipart/form-data");
}

async function readUpload(req: Request): Promise<FakeUpload | undefined> {
  try {
    const form = await req.formData();
    const file = form.get("file");
    if (!(file instanceof File)) return undefined;
    const content = await file.text();
    return { purpose: String(form.get("purpose") ?? ""), filename: file.name, bytes: file.size, content };
  } catch {
    return undefined;
  }
}

/** An answer of the Batch API routes: status, JSON or JSONL text, extra headers. */
interface RouteAnswer {
  status: number;
  payload: string;
  headers?: Record<string, string>;
}

function errorAnswer(status: number, message: string): RouteAnswer {
  return { status, payload: JSON.stringify({ error: { message, type: "invalid_request_error" } }) };
}

/** The fake's `/v1/files` and `/v1/batches`: uploaded files, batches, and their processing on retrieval. */
class FakeBatchApi {
  readonly batches: FakeBatch[] = [];
  readonly submittedCustomIds: string[] = [];
  readonly #files = new Map<string, FakeUpload & { id: string; createdAt: number }>();
  readonly #lines = new Map<string, FakeBatchLine[]>();

  constructor(
    readonly options: FakeServerOptions,
    readonly reply: (body: FakeChatBody) => string,
    readonly closing: AbortSignal,
  ) {}

  /** Answers a Batch API request, or returns `undefined` for paths it does not serve. */
  route(
    method: string,
    path: string,
    body: unknown,
    upload: FakeUpload | undefined,
    query: URLSearchParams,
  ): RouteAnswer | Promise<RouteAnswer> | undefined {
    const files = path.match(/\/files(?:\/([^/]+))?(\/content)?$/);
    if (files) {
      if (method === "POST" && !files[1]) return this.#upload(upload);
      const file = files[1] ? this.#files.get(files[1]) : undefined;
      if (!file) return errorAnswer(404, `no file ${files[1] ?? ""}`);
      if (files[2]) {
        return { status: 200, payload: file.content, headers: { "content-type": "application/jsonl" } };
      }
      return { status: 200, payload: JSON.stringify(fileObject(file)) };
    }
    const batches = path.match(/\/batches(?:\/([^/]+))?(\/cancel)?$/);
    if (!batches) return undefined;
    if (method === "POST" && !batches[1]) return this.#create(body);
    if (method === "GET" && !batches[1]) return this.#list(query);
    const batch = this.batches.find((b) => b.id === batches[1]);
    if (!batch) return errorAnswer(404, `no batch ${batches[1]}`);
    if (batches[2] && batch.status === "in_progress") batch.status = "cancelled";
    this.#refresh(batch);
    return { status: 200, payload: JSON.stringify(batchObject(batch)) };
  }

  #upload(upload: FakeUpload | undefined): RouteAnswer {
    if (!upload) return errorAnswer(400, "expected a multipart upload with a file");
    if (upload.purpose !== "batch") return errorAnswer(400, `purpose must be batch, got ${upload.purpose}`);
    return { status: 200, payload: JSON.stringify(fileObject(this.#addFile(upload))) };
  }

  #addFile(upload: FakeUpload): FakeUpload & { id: string; createdAt: number } {
    const file = { ...upload, id: `file-${this.#files.size}`, createdAt: Math.floor(Date.now() / 1000) };
    this.#files.set(file.id, file);
    return file;
  }

  async #create(body: unknown): Promise<RouteAnswer> {
    const params = body as
      | { input_file_id?: string; endpoint?: string; metadata?: Record<string, string> }
      | null;
    const file = params?.input_file_id ? this.#files.get(params.input_file_id) : undefined;
    if (!file) return errorAnswer(400, `no input file ${params?.input_file_id}`);
    if (params!.endpoint !== "/v1/chat/completions") return errorAnswer(400, `unsupported endpoint`);
    const id = `batch_${this.batches.length}`;
    const lines: FakeBatchLine[] = [];
    for (const [index, raw] of file.content.split("\n").filter((l) => l.trim()).entries()) {
      let line: { custom_id?: string; method?: string; url?: string; body?: FakeChatBody };
      try {
        line = JSON.parse(raw);
      } catch {
        return errorAnswer(400, `line ${index + 1} is not JSON`);
      }
      if (!line.custom_id || line.method !== "POST" || line.url !== params!.endpoint || !line.body) {
        return errorAnswer(
          400,
          `line ${index + 1} is not a POST ${params!.endpoint} request with a custom_id`,
        );
      }
      lines.push({ batchId: id, customId: line.custom_id, index, body: line.body });
    }
    const customIds = lines.map((l) => l.customId);
    if (new Set(customIds).size !== customIds.length) {
      return errorAnswer(400, "custom_id repeated in the file");
    }
    const batch: FakeBatch = {
      id,
      index: this.batches.length,
      inputFileId: file.id,
      customIds,
      metadata: params!.metadata ?? {},
      status: "in_progress",
      createdAtMs: Date.now(),
      counts: { total: lines.length, completed: 0, failed: 0 },
      answeredCustomIds: [],
    };
    this.batches.push(batch);
    this.submittedCustomIds.push(...customIds);
    this.#lines.set(id, lines);
    const mismatch = this.options.batchOneModel
      ? lines.find((l) => l.body.model !== lines[0].body.model)
      : undefined;
    if (mismatch) {
      batch.status = "failed";
      batch.errors = [{
        code: "mismatched_model",
        message: `line ${mismatch.index + 1} asks for model ${mismatch.body.model}, line 1 for ${
          lines[0].body.model
        }: a batch file takes one model`,
        line: mismatch.index + 1,
      }];
    }
    const hold = this.options.batchCreated?.(batch);
    if (hold) await Promise.race([hold, aborted(this.closing)]);
    this.#refresh(batch);
    return { status: 200, payload: JSON.stringify(batchObject(batch)) };
  }

  #list(query: URLSearchParams): RouteAnswer {
    const limit = Number(query.get("limit") ?? 20);
    const newest = [...this.batches].reverse();
    const after = query.get("after");
    const start = after ? newest.findIndex((b) => b.id === after) + 1 : 0;
    const page = newest.slice(start, start + limit);
    page.forEach((b) => this.#refresh(b));
    return {
      status: 200,
      payload: JSON.stringify({
        object: "list",
        data: page.map(batchObject),
        first_id: page[0]?.id ?? null,
        last_id: page.at(-1)?.id ?? null,
        has_more: start + limit < newest.length,
      }),
    };
  }

  /**
   * Finishes a batch whose delay has passed and that is not held: answers its lines (all of them, or those
   * `batchLineAnswered` picks when `batchOutcome` ends it early), writes the output and error files.
   */
  #refresh(batch: FakeBatch): void {
    if (batch.status !== "in_progress") return;
    if (Date.now() < batch.createdAtMs + (this.options.batchDelayMs ?? 0)) return;
    if (this.options.batchHold?.(batch)) return;
    const outcome = this.options.batchOutcome?.(batch);
    const answered = this.options.batchLineAnswered;
    if (outcome === "failed" || (outcome && !answered)) {
      batch.status = outcome;
      return;
    }
    const output: string[] = [];
    const errors: string[] = [];
    for (const line of this.#lines.get(batch.id) ?? []) {
      if (outcome && !answered!(line)) {
        if (outcome === "expired") errors.push(JSON.stringify(expiredLine(batch, line)));
        continue;
      }
      const fault = this.options.batchLineFault?.(line);
      if (fault?.status) {
        const message = fault.message ?? `scripted fault ${fault.status}`;
        errors.push(JSON.stringify({
          id: `batch_req_${batch.id}_${line.index}`,
          custom_id: line.customId,
          response: { status_code: fault.status, body: { error: { message, type: "fake_error" } } },
          error: null,
        }));
        continue;
      }
      output.push(JSON.stringify(this.#answerLine(batch, line)));
      batch.answeredCustomIds.push(line.customId);
    }
    const file = (lines: string[], kind: string) =>
      this.#addFile({
        purpose: "batch_output",
        filename: `${batch.id}_${kind}.jsonl`,
        bytes: 0,
        content: lines.map((l) => `${l}\n`).join(""),
      }).id;
    batch.outputFileId = output.length ? file(output, "output") : undefined;
    batch.errorFileId = errors.length ? file(errors, "error") : undefined;
    batch.counts = { total: output.length + errors.length, completed: output.length, failed: errors.length };
    batch.status = outcome ?? "completed";
  }

  /** The output-file line answering `line` (reply text, `finish_reason` and usage as scripted). */
  #answerLine(batch: FakeBatch, line: FakeBatchLine): Record<string, unknown> {
    const completion = this.options.batchLineCompletion?.(line) ?? {};
    const usage = completion.usage === undefined
      ? { prompt_tokens: 10, completion_tokens: 5 }
      : completion.usage;
    return {
      id: `batch_req_${batch.id}_${line.index}`,
      custom_id: line.customId,
      response: {
        status_code: 200,
        request_id: `req_${batch.id}_${line.index}`,
        body: {
          id: `chatcmpl-${batch.id}-${line.index}`,
          object: "chat.completion",
          created: 0,
          model: line.body.model,
          choices: [{
            index: 0,
            message: { role: "assistant", content: this.reply(line.body) },
            finish_reason: completion.finishReason ?? "stop",
          }],
          ...(usage
            ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }
            : {}),
        },
      },
      error: null,
    };
  }
}

/** The error-file line of a request an expired batch never ran (OpenAI's wording). */
function expiredLine(batch: FakeBatch, line: FakeBatchLine): Record<string, unknown> {
  return {
    id: `batch_req_${batch.id}_${line.index}`,
    custom_id: line.customId,
    response: null,
    error: {
      code: "batch_expired",
      message: "This request could not be executed before the completion window expired.",
    },
  };
}

function fileObject(file: FakeUpload & { id: string; createdAt: number }): Record<string, unknown> {
  return {
    id: file.id,
    object: "file",
    bytes: file.bytes || new TextEncoder().encode(file.content).length,
    created_at: file.createdAt,
    filename: file.filename,
    purpose: file.purpose,
    status: "processed",
  };
}

function batchObject(batch: FakeBatch): Record<string, unknown> {
  return {
    id: batch.id,
    object: "batch",
    endpoint: "/v1/chat/completions",
    errors: batch.errors ? { object: "list", data: batch.errors } : null,
    input_file_id: batch.inputFileId,
    completion_window: "24h",
    status: batch.status,
    output_file_id: batch.outputFileId ?? null,
    error_file_id: batch.errorFileId ?? null,
    created_at: Math.floor(batch.createdAtMs / 1000),
    request_counts: batch.counts,
    metadata: batch.metadata,
  };
}

/** Resolves when `signal` aborts (at once if it has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener("abort", () => done(), { once: true }));
}

/**
 * How late this process's timers fire, as the mean of the last {@linkcode TimerLateness.WINDOW} (starting from
 * none), and delays shortened by it so that they end on time on average.
 */
export class TimerLateness {
  /** Timers the mean is taken over. */
  static readonly WINDOW = 64;
  /** The most one timer's lateness counts for, in milliseconds (so no delay is ever shortened by more). */
  static readonly MAX_LATE_MS = 4;
  readonly #recent: number[] = [];
  #sum = 0;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly #now: () => number;

  /** `sleep` and `now` are the timer and the clock (tests give their own). */
  constructor(
    sleep: (ms: number, signal: AbortSignal) => Promise<void> = abortableDelay,
    now: () => number = () => performance.now(),
  ) {
    this.#sleep = sleep;
    this.#now = now;
  }

  /** The mean lateness of the last timers, in milliseconds (0 before any). */
  get mean(): number {
    return this.#recent.length ? this.#sum / this.#recent.length : 0;
  }

  /** Waits `ms` milliseconds on average (or until `signal` aborts): a timer set the mean lateness shorter. */
  async delay(ms: number, signal: AbortSignal): Promise<void> {
    const wait = Math.max(0, ms - this.mean);
    const start = this.#now();
    await this.#sleep(wait, signal);
    if (signal.aborted) return;
    this.#note(this.#now() - start - wait);
  }

  #note(late: number): void {
    // A stall (a collection, a burst of answers) is not the timers' lag: counted whole, it would set the next
    // timers that much early. Each timer counts for at most MAX_LATE_MS.
    late = Math.min(Math.max(late, 0), TimerLateness.MAX_LATE_MS);
    this.#recent.push(late);
    this.#sum += late;
    if (this.#recent.length > TimerLateness.WINDOW) this.#sum -= this.#recent.shift()!;
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    // The listener goes once its delay has passed: a long-lived server would otherwise keep one per request.
    const onAbort = () => {
      clearTimeout(timer);
      done();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      done();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const server = await startFakeServer({
    port: Number(arg("port") ?? 8000),
    latencyMs: Number(arg("latency") ?? 0),
  });
  console.log(`fake OpenAI-compatible server at ${server.url}`);
}
