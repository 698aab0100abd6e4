/**
 * A local OpenAI-compatible server for tests and benchmarks: deterministic answers, scripted latency and
 * faults (429 with Retry-After, 500, hang, malformed body). It listens on 127.0.0.1 only.
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
  seed?: number;
  response_format?: { type: string };
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
  /** HTTP status the fake answered with, or `null` while pending or hung. */
  status: number | null;
}

/** Options of {@linkcode startFakeServer}. */
export interface FakeServerOptions {
  /** Delay before every answer, in milliseconds (default 0). */
  latencyMs?: number;
  /** Port (default: any free port). */
  port?: number;
  /** Decides per request whether to misbehave. */
  fault?: (request: FakeRequestRecord) => FakeFault | undefined;
  /** Produces the reply text of a chat completion (default: {@linkcode defaultFakeReply}). */
  reply?: (body: FakeChatBody) => string;
  /** Extra headers of every answer (e.g. `x-ratelimit-*`), decided per request after its fault. */
  headers?: (request: FakeRequestRecord) => Record<string, string>;
  /** Keep request bodies in {@linkcode FakeServer.requests} (default `true`; benchmarks turn it off). */
  keepBodies?: boolean;
}

/** A running fake server. */
export interface FakeServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every request received so far. */
  requests: FakeRequestRecord[];
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
  const { promise: listening, resolve } = Promise.withResolvers<number>();

  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      signal: controller.signal,
      onListen: ({ port }) => resolve(port),
    },
    async (req) => {
      const path = new URL(req.url).pathname;
      let body: unknown = null;
      try {
        body = req.method === "POST" ? await req.json() : null;
      } catch {
        body = null;
      }
      const record: FakeRequestRecord = {
        index: requests.length,
        path,
        body,
        callKey: req.headers.get("x-medeval-call"),
        authorization: req.headers.get("authorization"),
        status: null,
      };
      requests.push(record);
      const fault = options.fault?.(record);
      if (fault?.hang) {
        // A hang is bounded so the fake never outlives its test: it ends when the server closes or after 60 s.
        await abortableDelay(60_000, controller.signal);
        return new Response(null, { status: 504 });
      }
      if (options.latencyMs) await abortableDelay(options.latencyMs, controller.signal);
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
      if (path.endsWith("/models")) {
        return respond(
          200,
          JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model" }] }),
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
        const text = reply(chat);
        return respond(
          200,
          JSON.stringify({
            id: `chatcmpl-${record.index}`,
            object: "chat.completion",
            created: 0,
            model: chat.model,
            choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
      }
      return respond(404, JSON.stringify({ error: { message: `no route ${path}` } }));
    },
  );

  return listening.then((port) => ({
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      controller.abort();
      await server.finished;
    },
  }));
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      done();
    }, { once: true });
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
