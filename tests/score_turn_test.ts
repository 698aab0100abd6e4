import { assert, assertEquals } from "@std/assert";
import { BENCHMARKS, getTask } from "../lib/benchmarks/registry.ts";
import type { Scorer } from "../lib/core/task.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { startFakeServer } from "./fake_server.ts";

const SAMPLE = new URL("../data/llmeval_med/sample.json", import.meta.url).pathname;

Deno.test("an answer is scored on a later turn of the event loop than the one it arrived in (the calls it freed up go out first)", async () => {
  // A chain of 100 microtasks begun as each answer arrives has run out by the time the answer is scored: scoring
  // waited for a later macrotask (scoring at once would hold back the requests the answer's arrival let go,
  // which are sent only when the thread yields).
  const turned = new Set<string>();
  const scoredAfterTurn = new Map<string, boolean>();
  const base = await getTask("llmeval-med");
  const watch: Scorer = {
    name: "watch",
    roles: [],
    score({ sample }) {
      scoredAfterTurn.set(sample.id, turned.has(sample.id));
      return Promise.resolve([{
        judge: "",
        run: 1,
        value: 1,
        values: null,
        valid: true,
        reason: null,
        callKey: null,
        detail: null,
      }]);
    },
  };
  BENCHMARKS["toy-turns"] = () =>
    Promise.resolve({
      ...base,
      name: "toy-turns",
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
      scorers: [watch],
    });
  const server = await startFakeServer();
  const out = await Deno.makeTempDir({ prefix: "medeval-turn-" });
  try {
    const result = await runEval({
      benchmark: "toy-turns",
      model: "fake-model",
      baseUrl: server.url,
      data: SAMPLE,
      out,
      progress: false,
      renderFigures: false,
    });
    assert(result.samples.length > 5);
    assertEquals(scoredAfterTurn.size, result.samples.length);
    assertEquals([...scoredAfterTurn].filter(([, after]) => !after), []);
  } finally {
    delete BENCHMARKS["toy-turns"];
    await server.close();
    await Deno.remove(out, { recursive: true });
  }
});
