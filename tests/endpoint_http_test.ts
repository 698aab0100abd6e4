/**
 * The direct HTTP path of chat completions and embeddings (`EndpointHttp`): what goes on the wire, and that an
 * error answer reads as the npm:openai client reads it (message, code, param), so a run's errors, adaptations
 * and classifications do not depend on which path made the call.
 * @module
 */
import { assert, assertEquals, assertRejects } from "@std/assert";
import OpenAI from "openai";
import {
  EndpointAbortError,
  EndpointConnectionError,
  EndpointHttp,
  EndpointHttpError,
  EndpointTimeoutError,
} from "../lib/providers/transport/endpoint_http.ts";
import { classifyError } from "../lib/providers/transport/classify_error.ts";

/** What one request to the test server carried. */
interface Seen {
  method: string;
  path: string;
  query: string;
  headers: Headers;
  body: unknown;
}

/** Serves `answer` on a free port for the duration of `body`; returns what the server saw. */
async function withServer(
  answer: (req: Request) => Response | Promise<Response>,
  body: (url: string, seen: Seen[]) => Promise<void>,
): Promise<void> {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    seen.push({
      method: req.method,
      path: url.pathname,
      query: url.search,
      headers: req.headers,
      body: await req.json().catch(() => null),
    });
    return answer(req);
  });
  try {
    await body(`http://127.0.0.1:${server.addr.port}/v1`, seen);
  } finally {
    await server.shutdown();
  }
}

Deno.test("EndpointHttp posts JSON to the endpoint's path with its key, extra headers and Azure's api-version", async () => {
  await withServer(
    () => Response.json({ ok: true }, { headers: { "x-ratelimit-remaining-requests": "7" } }),
    async (url, seen) => {
      const plain = new EndpointHttp({ baseURL: `${url}/`, apiKey: "sk-test" });
      const answer = await plain.post("/chat/completions", { model: "m", messages: [] }, {
        headers: { "x-medeval-call": "abc" },
      });
      assertEquals(answer.data, { ok: true });
      assertEquals(answer.headers.get("x-ratelimit-remaining-requests"), "7");
      const azure = new EndpointHttp({ baseURL: url, apiKey: "az-key", apiVersion: "2024-10-21" });
      await azure.post("/embeddings", { model: "e", input: "x" });
      const [first, second] = seen;
      assertEquals([first.method, first.path, first.query], ["POST", "/v1/chat/completions", ""]);
      assertEquals(first.headers.get("authorization"), "Bearer sk-test");
      assertEquals(first.headers.get("content-type"), "application/json");
      assertEquals(first.headers.get("x-medeval-call"), "abc");
      assertEquals(first.headers.get("api-key"), null);
      assertEquals(first.body, { model: "m", messages: [] });
      assertEquals([second.path, second.query], ["/v1/embeddings", "?api-version=2024-10-21"]);
      assertEquals(second.headers.get("api-key"), "az-key");
    },
  );
});

Deno.test("an error answer reads as the npm:openai client reads it: message, code and param", () => {
  const bodies = [
    // OpenAI's shape.
    JSON.stringify({
      error: {
        message: "Unsupported parameter: 'max_tokens' is not supported with this model.",
        type: "invalid_request_error",
        param: "max_tokens",
        code: "unsupported_parameter",
      },
    }),
    // vLLM's: the error object at the top level, its code a number.
    JSON.stringify({
      object: "error",
      message: "This model's maximum context length is 4096 tokens.",
      type: "BadRequestError",
      param: null,
      code: 400,
    }),
    // A framework's default.
    JSON.stringify({ detail: "Not Found" }),
    // Plain text, and nothing.
    "upstream connect error",
    "",
  ];
  for (const body of bodies) {
    const direct = new EndpointHttpError(400, body, new Headers());
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
    const normalized = json && typeof json === "object" && (json as { error?: unknown }).error == null
      ? { error: json }
      : json;
    const client = OpenAI.APIError.generate(
      400,
      normalized as object,
      json ? undefined : body,
      new Headers(),
    );
    assertEquals(
      [direct.message, direct.code, direct.param],
      [client.message, typeof client.code === "string" ? client.code : undefined, client.param ?? undefined],
      body,
    );
  }
});

Deno.test("classified: a context limit is final, a 5xx and a malformed 2xx body are worth another attempt", async () => {
  const answers = [
    new Response(JSON.stringify({ message: "This model's maximum context length is 4096 tokens." }), {
      status: 400,
    }),
    new Response("overloaded", { status: 503, headers: { "retry-after": "2" } }),
    new Response('{"choices": [', { status: 200 }),
  ];
  let i = 0;
  await withServer(() => answers[i++], async (url) => {
    const http = new EndpointHttp({ baseURL: url });
    const errors = [];
    for (let k = 0; k < answers.length; k++) {
      errors.push(classifyError(await http.post("/chat/completions", {}).then(() => undefined, (e) => e)));
    }
    const [context, overloaded, malformed] = errors;
    assertEquals([context.retryable, context.status], [false, 400]);
    assert(context.message.startsWith("context length exceeded (the model's limit is 4096 tokens)"));
    assertEquals([overloaded.retryable, overloaded.status, overloaded.retryAfterMs], [true, 503, 2000]);
    assertEquals(overloaded.message, "HTTP 503: 503 overloaded");
    assert(malformed.retryable && malformed.message.startsWith("malformed response body"), malformed.message);
  });
});

Deno.test("a timeout, an abort and a refused connection are told apart", async () => {
  // Answers after 300 ms: past the timeouts and aborts below, short enough for the server to close soon after.
  await withServer(async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return Response.json({});
  }, async (url) => {
    const slow = new EndpointHttp({ baseURL: url, timeoutMs: 50 });
    const timedOut = await assertRejects(() => slow.post("/chat/completions", {}), EndpointTimeoutError);
    assertEquals([classifyError(timedOut).message, classifyError(timedOut).retryable], [
      "request timed out",
      true,
    ]);

    const controller = new AbortController();
    const patient = new EndpointHttp({ baseURL: url, timeoutMs: 10_000 });
    const sending = patient.post("/chat/completions", {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    const aborted = await assertRejects(() => sending, EndpointAbortError);
    assertEquals(classifyError(aborted).retryable, false);
  });
  // A port nothing listens on: bind one, close it, call it.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const refused = await assertRejects(
    () => new EndpointHttp({ baseURL: `http://127.0.0.1:${port}/v1` }).post("/chat/completions", {}),
    EndpointConnectionError,
  );
  const classified = classifyError(refused);
  assert(classified.retryable && classified.message.startsWith("connection failed: "), classified.message);
});

Deno.test("a base URL's own query is kept after the path, and the environment's OpenAI headers are sent", async () => {
  await withServer(() => Response.json({ ok: true }), async (url, seen) => {
    const env: Record<string, string> = {
      OPENAI_ORG_ID: "org-1",
      OPENAI_PROJECT_ID: "proj-1",
      OPENAI_CUSTOM_HEADERS: "X-Gateway: team-a\nno colon here\nX-Trace:  on ",
    };
    const http = new EndpointHttp(
      { baseURL: `${url}/deployments/d?api-version=2024-10-21&x=1`, apiKey: "k", apiVersion: "2024-10-21" },
      (name) => env[name],
    );
    await http.post("/chat/completions", {});
    await new EndpointHttp({ baseURL: `${url}?x=2` }, () => undefined).post("/embeddings", {});
    const [azure, plain] = seen;
    assertEquals([azure.path, azure.query], [
      "/v1/deployments/d/chat/completions",
      "?api-version=2024-10-21&x=1",
    ]);
    assertEquals(
      ["openai-organization", "openai-project", "x-gateway", "x-trace"].map((h) => azure.headers.get(h)),
      ["org-1", "proj-1", "team-a", "on"],
    );
    assertEquals([plain.path, plain.query, plain.headers.get("openai-organization")], [
      "/v1/embeddings",
      "?x=2",
      null,
    ]);
  });
});

Deno.test("an error answer whose body breaks off keeps its status and Retry-After (a 429 stays a throttle)", async () => {
  // A raw server: a 429 promising 100 bytes, sending 7, then closing the connection.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(65536);
      await conn.read(buffer);
      await conn.write(
        new TextEncoder().encode(
          "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 100\r\nRetry-After: 2\r\nConnection: close\r\n\r\npartial",
        ),
      );
      conn.close();
    }
  })();
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    const err = await assertRejects(
      () => new EndpointHttp({ baseURL: `http://127.0.0.1:${port}/v1` }).post("/chat/completions", {}),
      EndpointHttpError,
    );
    assertEquals([err.status, err.headers.get("retry-after")], [429, "2"]);
    const classified = classifyError(err);
    assertEquals([classified.status, classified.retryable, classified.retryAfterMs], [429, true, 2000]);
  } finally {
    listener.close();
    await serving.catch(() => {});
  }
});
