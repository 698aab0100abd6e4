/**
 * The fake OpenAI-compatible server as a process of its own, for benchmarks that must not share an event loop
 * (or a CPU profile) with the run they measure. Judge prompts get a valid verdict every time, so a judged run
 * makes exactly one judge call per answer; request bodies are not kept, so the fake's memory stays flat.
 *
 * It also keeps the wall-clock times (epoch milliseconds) of the first chat request it received and of the last
 * answer it sent, served as JSON at its times URL (`?reset=1` starts afresh): a benchmark measures start → first
 * request and last answer → exit of a whole command from the server's side.
 *
 * `deno run -A bench/fake_server_process.ts --latency 100` prints `{"url": ..., "times": ...}` on one line once
 * listening.
 * @module
 */
import { defaultFakeReply, type FakeChatBody, startFakeServer } from "../tests/fake_server.ts";

/** How promptfoo's `llm-rubric` grader opens its system message (it needs a JSON grade back). */
const PROMPTFOO_GRADER = "You are grading output according to a user-specified rubric";

/**
 * Answers judge prompts (medeval's and promptfoo's rubric grader) with a fixed valid verdict and everything
 * else like the default fake.
 */
export function benchReply(body: FakeChatBody): string {
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  if (user.includes("### Student's answer")) return JSON.stringify({ score: 4, reason: "bench verdict" });
  if (body.messages.some((m) => m.role === "system" && m.content.startsWith(PROMPTFOO_GRADER))) {
    return JSON.stringify({ reason: "bench grade", pass: true, score: 1 });
  }
  return defaultFakeReply(body);
}

/** When the chat requests of a measured command reached the fake and were answered. */
export interface RequestTimes {
  /** Epoch milliseconds of the first chat request received, `null` before any. */
  first_request_ms: number | null;
  /** Epoch milliseconds of the last chat answer sent, `null` before any. */
  last_answer_ms: number | null;
  /** Chat requests received. */
  requests: number;
  /**
   * How long after an answer left the next request arrived on the same connection, in milliseconds: the time a
   * client takes to turn an answer into its next request, plus the server's own (`null` before any).
   */
  answer_to_next_request_ms: GapStats | null;
  /**
   * How long the fake held each chat request, from its arrival to its answer leaving, in milliseconds: the
   * latency it served, to read beside the latency it was given (`null` before any answer).
   */
  request_to_answer_ms: GapStats | null;
}

/** A distribution of gaps, in milliseconds. */
export interface GapStats {
  /** Gaps measured. */
  n: number;
  /** Their mean. */
  mean: number;
  /** Their median. */
  p50: number;
  /** Their 90th percentile. */
  p90: number;
  /** Their 99th percentile. */
  p99: number;
  /** The longest. */
  max: number;
}

/** Returns the distribution of `gaps` (sorted in place), each figure to 0.01 ms; `null` for none. */
export function gapStats(gaps: number[]): GapStats | null {
  if (gaps.length === 0) return null;
  gaps.sort((a, b) => a - b);
  const at = (q: number) => Math.round(gaps[Math.floor(q * (gaps.length - 1))] * 100) / 100;
  const mean = gaps.reduce((sum, g) => sum + g, 0) / gaps.length;
  return {
    n: gaps.length,
    mean: Math.round(mean * 100) / 100,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: at(1),
  };
}

/** Epoch milliseconds with sub-millisecond precision (the same clock a parent process reads). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Records request arrival and answer times (chat completions only). */
export class RequestClock {
  #times: Omit<RequestTimes, "answer_to_next_request_ms" | "request_to_answer_ms"> = {
    first_request_ms: null,
    last_answer_ms: null,
    requests: 0,
  };
  /** When the last answer on each connection (by the client's port) left. */
  #lastAnswer = new Map<number, number>();
  /** Each answer → next request gap on a connection. */
  #gaps: number[] = [];
  /** When the request under way on each connection (by the client's port) arrived. */
  #arrived = new Map<number, number>();
  /** Each request's arrival → its answer. */
  #served: number[] = [];

  /** Notes a chat request arriving on the connection from `port` (`null`: not known). */
  received(port: number | null = null): void {
    const now = epochMs();
    this.#times.first_request_ms ??= now;
    this.#times.requests++;
    const answered = port === null ? undefined : this.#lastAnswer.get(port);
    if (answered !== undefined) this.#gaps.push(now - answered);
    if (port !== null) this.#arrived.set(port, now);
  }

  /** Notes a chat answer about to be sent on the connection from `port` (`null`: not known). */
  answered(port: number | null = null): void {
    const now = epochMs();
    this.#times.last_answer_ms = now;
    if (port === null) return;
    this.#lastAnswer.set(port, now);
    const arrived = this.#arrived.get(port);
    if (arrived !== undefined) this.#served.push(now - arrived);
  }

  /** The times so far; `reset` starts afresh afterwards. */
  read(reset = false): RequestTimes {
    const times = {
      ...this.#times,
      answer_to_next_request_ms: gapStats([...this.#gaps]),
      request_to_answer_ms: gapStats([...this.#served]),
    };
    if (reset) {
      this.#times = { first_request_ms: null, last_answer_ms: null, requests: 0 };
      this.#lastAnswer = new Map();
      this.#gaps = [];
      this.#arrived = new Map();
      this.#served = [];
    }
    return times;
  }
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const clock = new RequestClock();
  const server = await startFakeServer({
    port: Number(arg("port") ?? 0),
    latencyMs: Number(arg("latency") ?? 100),
    onTimeLatency: true,
    reply: benchReply,
    fault: (request) => {
      if (request.path.endsWith("/chat/completions")) clock.received(request.remotePort);
      return undefined;
    },
    // Asked for an answer's headers once its latency has passed, just before it is sent.
    headers: (request) => {
      if (request.path.endsWith("/chat/completions")) clock.answered(request.remotePort);
      return {};
    },
    keepBodies: false,
  });
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) }, (req) => {
    const reset = new URL(req.url).searchParams.get("reset") === "1";
    return Response.json(clock.read(reset));
  });
  const timesPort = await listening;
  console.log(JSON.stringify({ url: server.url, times: `http://127.0.0.1:${timesPort}/times` }));
}
