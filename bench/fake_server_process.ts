/**
 * The fake OpenAI-compatible server as a process of its own, for benchmarks that must not share an event loop
 * (or a CPU profile) with the run they measure. Judge prompts get a valid verdict every time, so a judged run
 * makes exactly one judge call per answer; request bodies are not kept, so the fake's memory stays flat.
 *
 * `deno run -A bench/fake_server_process.ts --latency 100` prints `{"url": ...}` on one line once listening.
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

if (import.meta.main) {
  const arg = (name: string) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const server = await startFakeServer({
    port: Number(arg("port") ?? 0),
    latencyMs: Number(arg("latency") ?? 100),
    reply: benchReply,
    keepBodies: false,
  });
  console.log(JSON.stringify({ url: server.url }));
}
