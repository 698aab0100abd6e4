import { assert, assertEquals } from "@std/assert";
import { RequestShape } from "../lib/providers/transport/request_shape.ts";
import type { ChatRequest, RefusalInfo } from "../lib/providers/types.ts";

const REQUEST: ChatRequest = {
  messages: [{ role: "user", content: "hi" }],
  temperature: 0,
  maxTokens: 64,
  seed: 1,
};

/** OpenAI's documented refusal of `param`. */
function refusal(param: string): RefusalInfo {
  return {
    status: 400,
    code: "unsupported_parameter",
    param,
    message: `Unsupported parameter: '${param}' is not supported with this model.`,
  };
}

Deno.test("request shape: requests in a shape not yet answered all go out at once, none held for a first reply", async () => {
  const shape = new RequestShape();
  const sent: Record<string, unknown>[] = [];
  const { promise: answer, resolve } = Promise.withResolvers<void>();
  const replies = Array.from({ length: 8 }, () =>
    shape.send("m", REQUEST, async (body) => {
      sent.push(body);
      await answer;
      return "ok";
    }));
  // Every request reached the wire before the first reply came back.
  await new Promise((r) => setTimeout(r, 10));
  assertEquals(sent.length, 8);
  resolve();
  assertEquals(await Promise.all(replies), Array(8).fill("ok"));
  assertEquals(shape.record().sent, ["max_tokens", "seed", "temperature"]);
});

Deno.test("request shape: the refusals of requests in flight in the old shape change it once; the rest are outdated", () => {
  const shape = new RequestShape();
  const inFlight = Array.from({ length: 5 }, () => shape.body("m", REQUEST));
  const first = shape.adapt(inFlight[0], refusal("max_tokens"));
  assert(typeof first === "object");
  assertEquals(first.now, "max_completion_tokens");
  for (const body of inFlight.slice(1)) assertEquals(shape.adapt(body, refusal("max_tokens")), "outdated");
  // A later refusal of another parameter of the same old bodies is still learned (once).
  assert(typeof shape.adapt(inFlight[1], refusal("temperature")) === "object");
  assertEquals(shape.adapt(inFlight[2], refusal("temperature")), "outdated");
  assertEquals(shape.adaptations.map((a) => `${a.parameter}: ${a.now}`), [
    "max_tokens: max_completion_tokens",
    "temperature: left out (server default)",
  ]);
  const now = shape.body("m", REQUEST);
  assertEquals(Object.keys(now).sort(), ["max_completion_tokens", "messages", "model", "seed"]);
  // A refusal naming a parameter the body did not carry, or one no shape can change, stands.
  assertEquals(shape.adapt(now, refusal("temperature")), undefined);
  assertEquals(shape.adapt(now, refusal("reasoning_effort")), undefined);
});

Deno.test("request shape: a server refusing both token-limit parameters gets an error, not an endless switch", () => {
  const shape = new RequestShape();
  const first = shape.adapt(shape.body("m", REQUEST), refusal("max_tokens"));
  assert(typeof first === "object");
  assertEquals(shape.adapt(shape.body("m", REQUEST), refusal("max_completion_tokens")), undefined);
  assertEquals(shape.tokenLimit, "max_completion_tokens");
  assertEquals(shape.adaptations.length, 1);
});
