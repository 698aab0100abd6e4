/**
 * The fake OpenAI-compatible server for the PerMedCQA bench, run as its own process so the bench measures the
 * pipeline's memory alone: the model answers with a tag of everything it was sent (so every condition's
 * answers differ and are judged afresh), MedJudge prompts get the scripted verdicts. Prints its base URL on
 * the first line of standard output: `deno run -A bench/fake_medjudge_server.ts LATENCY_MS`.
 * @module
 */
import { sha256Hex } from "../lib/core/hash.ts";
import { medJudgeReply } from "../tests/fake_medjudge.ts";
import { type FakeChatBody, startFakeServer } from "../tests/fake_server.ts";

/** The model's answer depends on every message; everything else is MedJudge's script or the default. */
export function benchReply(body: FakeChatBody): string {
  if (body.model !== "fake-model") return medJudgeReply(body);
  return `Fake answer ${sha256Hex(JSON.stringify(body.messages)).slice(0, 8)} to: ${
    body.messages.at(-1)!.content.slice(0, 40)
  }`;
}

if (import.meta.main) {
  const server = await startFakeServer({ reply: benchReply, latencyMs: Number(Deno.args[0] ?? 100) });
  // The bench reads only the URL; the request log would grow without bound, so it is emptied as it fills.
  setInterval(() => server.requests.splice(0), 1000);
  console.log(server.url);
}
