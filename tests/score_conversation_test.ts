import { assert, assertEquals } from "@std/assert";
import { BENCHMARKS, getTask } from "../lib/benchmarks/registry.ts";
import type { ChatMessage } from "../lib/core/chat.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { ScoreValue, Task } from "../lib/core/task.ts";
import { evaluate } from "../lib/pipeline/evaluate.ts";
import type { Roles } from "../lib/pipeline/roles.ts";
import type { RunStore } from "../lib/store/run_store.ts";
import { type EvalResult, runEval } from "../lib/pipeline/run_eval.ts";
import { startFakeServer } from "./fake_server.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;

/** One valid score of `value` (no judge, run 1, nothing else). */
function scoreOf(value: number): ScoreValue[] {
  return [{ judge: "", run: 1, value, values: null, valid: true, reason: null, callKey: null, detail: null }];
}

/** Runs LLMEval-Med's shipped sample against the fake server as the benchmark `name`, with `over` laid over its task. */
async function runToy(name: string, over: (task: Task) => Partial<Task>): Promise<EvalResult> {
  const base = await getTask("llmeval-med");
  BENCHMARKS[name] = () => Promise.resolve({ ...base, name, ...over(base) });
  const server = await startFakeServer();
  const out = await Deno.makeTempDir({ prefix: "medeval-scoring-" });
  try {
    return await runEval({
      benchmark: name,
      model: "fake-model",
      baseUrl: server.url,
      data: SAMPLE,
      out,
      progress: false,
      renderFigures: false,
    });
  } finally {
    delete BENCHMARKS[name];
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
}

Deno.test("scorers get the conversation up to and including the answer they score (judges of whole dialogues)", async () => {
  const seen = new Map<string, readonly ChatMessage[]>();
  await runToy("toy-conversation", () => ({
    scorers: [{
      name: "capture",
      roles: [],
      score({ sample, answer, conversation }) {
        seen.set(sample.id, conversation ?? []);
        return Promise.resolve(scoreOf(conversation?.at(-1)?.content === answer ? 1 : 0));
      },
    }],
  }));
  // Turn 3 of a three-turn conversation: three questions and three answers, this answer last.
  const turn3 = seen.get("MTG-2-3")!;
  assertEquals(turn3.map((m) => m.role), ["user", "assistant", "user", "assistant", "user", "assistant"]);
  assertEquals(seen.get("MTG-2-1")!.length, 2);
  assertEquals(turn3.slice(0, 2), seen.get("MTG-2-1"));
});

Deno.test("an answer is scored on a later turn of the event loop than the one it arrived in (the calls it freed up go out first)", async () => {
  // A chain of 100 microtasks begun as each answer arrives has run out by the time the answer is scored: scoring
  // waited for a later task (scoring at once would hold back the requests the answer's arrival let go, which
  // are sent only when the thread yields).
  const turned = new Set<string>();
  const scoredAfterTurn = new Map<string, boolean>();
  const result = await runToy("toy-turns", (base) => ({
    solver: {
      ...base.solver,
      async solve(state, ctx) {
        const solved = await base.solver.solve(state, ctx);
        let chain = Promise.resolve();
        for (let hop = 0; hop < 100; hop++) chain = chain.then(() => {});
        chain.then(() => turned.add(state.sample.id));
        return solved;
      },
    },
    scorers: [{
      name: "watch",
      roles: [],
      score({ sample }) {
        scoredAfterTurn.set(sample.id, turned.has(sample.id));
        return Promise.resolve(scoreOf(1));
      },
    }],
  }));
  assert(result.samples.length > 5);
  assertEquals(scoredAfterTurn.size, result.samples.length);
  assertEquals([...scoredAfterTurn].filter(([, after]) => !after), []);
});

Deno.test("an evaluation that fails leaves no scoring of its own still writing to the store", async () => {
  // One worker: sample a is answered and its scoring (slow) begins while b runs; b's answer cannot be stored, so
  // the evaluation fails. It fails only once a's scoring is done, not while that scoring still writes.
  const events: string[] = [];
  const store = {
    outputScores: () => [],
    holdView: () => false,
    putOutput: (output: { sampleId: string }) => {
      if (output.sampleId === "b") throw new Error("disk full");
    },
    putScore: (score: { sampleId: string }) => events.push(`score ${score.sampleId}`),
    logEvent: () => {},
  };
  const roles = { members: () => [], context: () => ({}), sent: () => 0 };
  const sample = (id: string) => ({ id, input: id, conversation: null, fields: {} }) as unknown as Sample;
  const failure = evaluate({
    samples: [sample("a"), sample("b")],
    solver: {
      name: "echo",
      templates: {},
      solve: ({ sample }) => Promise.resolve({ answer: sample.id, callKey: null, turn: [] }),
    },
    scorers: [{
      name: "slow",
      roles: [],
      score: async () => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return scoreOf(1);
      },
    }],
    roles: roles as unknown as Roles,
    judgeRuns: 1,
    auxiliary: new Map(),
    condition: "c",
    store: store as unknown as RunStore,
    window: 1,
  }).catch((err: Error) => events.push(`failed: ${err.message}`));
  await failure;
  assertEquals(events, ["score a", "failed: disk full"]);
});
