/**
 * A fake OpenAI-compatible chat server that holds every request until the test answers it, and the waits that
 * let a test drive an `EndpointPool` step by step. Each arrival is recorded with the time of an
 * injected clock and with how many requests the server held at that moment, so a test counts what was in flight
 * at the server (events, not wall-clock windows). With a {@linkcode ManualClock} shared by the pool and the
 * server, latencies, pauses and rate windows are whatever the test's steps make them, however busy the machine.
 * @module
 */
import type { EndpointStatus } from "../lib/providers/flow/endpoint.ts";
import type { ManualClock } from "./manual_clock.ts";
import { waitUntil } from "./wait_until.ts";

/** One request the server received (chat completions only). */
export interface HeldRequest {
  /** 0-based arrival order at this server. */
  readonly index: number;
  /** The clock when it arrived. */
  readonly at: number;
  /** Requests held at its arrival, itself included. */
  readonly inFlight: number;
  /** Its parsed JSON body. */
  readonly body: { messages?: { role: string; content: string }[]; max_tokens?: number } | null;
}

/** How a held request is answered: 200 with a chat completion unless `status` says otherwise. */
export interface HeldAnswer {
  /** HTTP status (default 200); any other sends an OpenAI-style error body. */
  status?: number;
  /** Extra headers, e.g. `retry-after-ms`. */
  headers?: Record<string, string>;
}

/** A running server that holds requests. */
export interface HeldServer {
  /** Base URL including `/v1`. */
  readonly url: string;
  /** Every chat request received, in arrival order. */
  readonly arrivals: readonly HeldRequest[];
  /** Requests held now (received, not yet answered). */
  readonly inFlight: number;
  /** Answers sent so far. */
  readonly answered: number;
  /** The requests held now, oldest first. */
  held(): HeldRequest[];
  /** Answers one held request. */
  answer(request: HeldRequest, answer?: HeldAnswer): void;
  /** Answers every held request alike; returns how many. */
  answerAll(answer?: HeldAnswer): number;
  /** Answers whatever is still held with 503 and stops the server. */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 that holds each chat request until answered; `clock` stamps arrivals. */
export function startHeldServer(options: { clock?: () => number } = {}): Promise<HeldServer> {
  const clock = options.clock ?? (() => performance.now());
  const arrivals: HeldRequest[] = [];
  const pending = new Map<HeldRequest, (answer: HeldAnswer) => void>();
  let answered = 0;
  const controller = new AbortController();
  const { promise: listening, resolve: listen } = Promise.withResolvers<number>();

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: controller.signal, onListen: ({ port }) => listen(port) },
    async (req) => {
      const body = req.method === "POST" ? await req.json().catch(() => null) : null;
      if (!new URL(req.url).pathname.endsWith("/chat/completions")) {
        return Response.json({ error: { message: "only chat completions here" } }, { status: 404 });
      }
      const request: HeldRequest = {
        index: arrivals.length,
        at: clock(),
        inFlight: pending.size + 1,
        body,
      };
      const { promise, resolve } = Promise.withResolvers<HeldAnswer>();
      arrivals.push(request);
      pending.set(request, resolve);
      const answer = await promise;
      const status = answer.status ?? 200;
      const payload = status === 200
        ? {
          id: `chatcmpl-${request.index}`,
          object: "chat.completion",
          created: 0,
          model: (body as { model?: string } | null)?.model ?? "m",
          choices: [{
            index: 0,
            message: { role: "assistant", content: `held answer ${request.index}` },
            finish_reason: "stop",
          }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }
        : { error: { message: `held fault ${status}`, type: "fake_error" } };
      return Response.json(payload, { status, headers: answer.headers });
    },
  );

  const answer = (request: HeldRequest, reply: HeldAnswer = {}): void => {
    const resolve = pending.get(request);
    if (!resolve) throw new Error(`request ${request.index} is not held`);
    pending.delete(request);
    answered++;
    resolve(reply);
  };

  return listening.then((port) => ({
    url: `http://127.0.0.1:${port}/v1`,
    arrivals,
    get inFlight() {
      return pending.size;
    },
    get answered() {
      return answered;
    },
    held: () => [...pending.keys()],
    answer,
    answerAll(reply?: HeldAnswer): number {
      const held = [...pending.keys()];
      for (const request of held) answer(request, reply);
      return held.length;
    },
    close: async () => {
      for (const request of [...pending.keys()]) answer(request, { status: 503 });
      controller.abort();
      await server.finished;
    },
  }));
}

/** Anything that reports its endpoints' counts, such as an `EndpointPool`. */
export interface PoolStatus {
  /** Snapshots of the endpoints. */
  status(): EndpointStatus[];
}

/**
 * Waits until the pool has taken every answer the servers sent and every request it has sent has arrived.
 * The pool sends in the same task in which it takes an answer (or a timer fires), so from then on nothing
 * changes until the test answers a request or a pool timer fires.
 */
export function settle(pool: PoolStatus, servers: readonly HeldServer[]): Promise<void> {
  const counts = () => {
    const status = pool.status();
    const taken = status.reduce((sum, s) => sum + s.served + s.throttled + s.failed, 0);
    const sent = taken + status.reduce((sum, s) => sum + s.inFlight, 0);
    const arrived = servers.reduce((sum, s) => sum + s.arrivals.length, 0);
    const answered = servers.reduce((sum, s) => sum + s.answered, 0);
    return { taken, sent, arrived, answered };
  };
  return waitUntil(
    () => {
      const { taken, sent, arrived, answered } = counts();
      return taken === answered && sent === arrived;
    },
    () => `the pool to settle: ${JSON.stringify(counts())}`,
  );
}

/**
 * Answers the held requests as servers of fixed latencies would (`latencyMs[i]` clock milliseconds after the
 * arrival at `servers[i]`): one at a time, the earliest due first (ties in server, then arrival, order), moving
 * `clock` to each answer's time and letting the pool settle in between. Returns once nothing is held and the pool
 * sends nothing more (a pool waiting on a timer is not waited for).
 */
export async function answerWithLatencies(
  pool: PoolStatus,
  servers: readonly HeldServer[],
  latencyMs: readonly number[],
  clock: ManualClock,
): Promise<void> {
  for (;;) {
    await settle(pool, servers);
    let next: { server: HeldServer; request: HeldRequest; due: number } | undefined;
    for (const [i, server] of servers.entries()) {
      for (const request of server.held()) {
        const due = request.at + latencyMs[i];
        if (!next || due < next.due) next = { server, request, due };
      }
    }
    if (!next) return;
    clock.moveTo(next.due);
    next.server.answer(next.request);
  }
}
