import { assertEquals } from "@std/assert";
import { BENCHMARKS, getTask } from "../lib/benchmarks/registry.ts";
import type { ChatMessage } from "../lib/core/chat.ts";
import type { Scorer } from "../lib/core/task.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { startFakeServer } from "./fake_server.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;

Deno.test("scorers get the conversation up to and including the answer they score (judges of whole dialogues)", async () => {
  const seen = new Map<string, readonly ChatMessage[]>();
  const capture: Scorer = {
    name: "capture",
    roles: [],
    score({ sample, answer, conversation }) {
      seen.set(sample.id, conversation ?? []);
      return Promise.resolve([{
        judge: "",
        run: 1,
        value: conversation?.at(-1)?.content === answer ? 1 : 0,
        values: null,
        valid: true,
        reason: null,
        callKey: null,
        detail: null,
      }]);
    },
  };
  BENCHMARKS["toy-conversation"] = async () => ({
    ...await getTask("llmeval-med"),
    name: "toy-conversation",
    scorers: [capture],
  });
  const server = await startFakeServer();
  const out = await Deno.makeTempDir({ prefix: "medeval-conv-" });
  try {
    await runEval({
      benchmark: "toy-conversation",
      model: "fake-model",
      baseUrl: server.url,
      data: SAMPLE,
      out,
      progress: false,
      renderFigures: false,
    });
    // Turn 3 of a three-turn conversation: three questions and three answers, this answer last.
    const turn3 = seen.get("MTG-2-3")!;
    assertEquals(turn3.map((m) => m.role), ["user", "assistant", "user", "assistant", "user", "assistant"]);
    assertEquals(seen.get("MTG-2-1")!.length, 2);
    assertEquals(turn3.slice(0, 2), seen.get("MTG-2-1"));
  } finally {
    delete BENCHMARKS["toy-conversation"];
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
