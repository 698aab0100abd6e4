/**
 * `deno task bench`: throughput of the LLMEval-Med pipeline against the fake server (100 ms latency per call,
 * concurrency 64, 3 judge runs), plus the loader and the bootstrap. Divide the question count by the reported
 * time per iteration for samples/s; the run also prints it.
 */
import { loadLlmEvalMed } from "../lib/benchmarks/llmeval_med/load.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { bootstrapMean } from "../lib/stats/bootstrap.ts";
import { scriptedReply } from "../tests/fake_judge.ts";
import { startFakeServer } from "../tests/fake_server.ts";
import { sharedPath } from "../tests/shared_data.ts";
import { pathExists, projectPath } from "../lib/core/fs.ts";

const REAL = sharedPath("data/llmeval-med/dataset.json");
const data = await pathExists(REAL) ? REAL : projectPath("data/llmeval_med/sample.json");
const which = data === REAL ? "published file" : "shipped sample";
const { samples } = await loadLlmEvalMed(data);
const server = await startFakeServer({ reply: scriptedReply, latencyMs: 100 });

Deno.bench({
  name:
    `llmeval-med eval: ${samples.length} questions x (1 answer + 3 judgings), 100 ms latency, concurrency 64`,
  n: 2,
  warmup: 0,
  async fn(b) {
    const out = await Deno.makeTempDir({ prefix: "medeval-bench-" });
    b.start();
    const started = performance.now();
    const result = await runEval({
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: server.url,
      judge: "fake-judge",
      judgeBaseUrl: server.url,
      judgeRuns: 3,
      data,
      out,
      concurrency: 64,
      judgeConcurrency: 64,
      progress: false,
      renderFigures: false,
    });
    const seconds = (performance.now() - started) / 1000;
    b.end();
    if (result.failures > 0) {
      throw new Error(`${result.failures} calls failed: the timing is not of a complete run`);
    }
    console.log(
      `  ${result.summary.n} questions in ${seconds.toFixed(1)} s = ${
        (result.summary.n / seconds).toFixed(1)
      } samples/s`,
    );
    await Deno.remove(out, { recursive: true });
  },
});

Deno.bench({
  name: `llmeval-med load (${which}, lenient JSON + zod)`,
  async fn() {
    await loadLlmEvalMed(data);
  },
});

Deno.bench({
  name: "bootstrap CI, n=667, 2000 resamples",
  fn() {
    bootstrapMean(samples.map((_, i) => (i % 3 === 0 ? 1 : 0)), { seed: "bench" });
  },
});

globalThis.addEventListener("unload", () => void server.close());
