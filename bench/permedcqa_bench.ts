/**
 * `deno task bench`: PerMedCQA at the published test-set size against the fake server — 3,513 questions (the
 * shipped test split repeated with distinct ids and texts), a 64,280-record train split for few-shot draws,
 * baseline + pivot:en + role + fewshot, one MedJudge judging per answer, 100 ms latency per call and 64
 * requests in flight per role. The fake server runs as its own process (bench/fake_medjudge_server.ts), so the
 * peak RSS printed is the pipeline's. It prints answers/s, the bound the latency and concurrency set, and peak
 * RSS.
 */
import { loadPerMedCqa } from "../lib/benchmarks/permedcqa/load.ts";
import { projectPath } from "../lib/core/fs.ts";
import { runEval } from "../lib/pipeline/run_eval.ts";
import { startChildServer } from "./child_server.ts";

const TEST_SIZE = 3513;
const TRAIN_SIZE = 64280;
const LATENCY_MS = 100;
const CONCURRENCY = 64;

/** Writes `size` records made from the shipped `split`, each with its own id and question text. */
async function scaled(split: string, size: number, dir: string): Promise<string> {
  const records = JSON.parse(await Deno.readTextFile(projectPath(`data/permedcqa/Data/${split}.json`)));
  const out = Array.from({ length: size }, (_, i) => {
    const r = records[i % records.length];
    return { ...r, instance_id: `${r.instance_id}-${i}`, Question: `${r.Question} (${i})` };
  });
  const path = `${dir}/${split}.json`;
  await Deno.writeTextFile(path, JSON.stringify(out));
  return path;
}

/** Starts the fake server in a child process; returns its URL and a way to stop it. */
async function startServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = await startChildServer(projectPath("bench/fake_medjudge_server.ts"), [String(LATENCY_MS)]);
  return { url: server.line, close: server.close };
}

const dir = await Deno.makeTempDir({ prefix: "medeval-bench-permedcqa-" });
const data = await scaled("test", TEST_SIZE, dir);
await scaled("train", TRAIN_SIZE, dir);

Deno.bench({
  name:
    `permedcqa eval: ${TEST_SIZE} questions x 4 conditions (baseline, pivot:en, role, fewshot) + MedJudge, ` +
    `${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}`,
  n: 1,
  warmup: 0,
  async fn(b) {
    const server = await startServer();
    const out = await Deno.makeTempDir({ prefix: "medeval-bench-" });
    let peak = 0;
    const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 50);
    b.start();
    const started = performance.now();
    const result = await runEval({
      benchmark: "permedcqa",
      model: "fake-model",
      baseUrl: server.url,
      judge: "fake-judge",
      judgeRuns: 1,
      translator: "fake-translator",
      ablations: ["pivot:en", "role", "fewshot"],
      data,
      out,
      concurrency: CONCURRENCY,
      judgeConcurrency: CONCURRENCY,
      translatorConcurrency: CONCURRENCY,
      progress: false,
      renderFigures: false,
    });
    const seconds = (performance.now() - started) / 1000;
    b.end();
    clearInterval(sampler);
    if (result.failures > 0) {
      throw new Error(`${result.failures} calls failed: the timing is not of a complete run`);
    }
    const sent = Object.entries(result.calls).map(([role, s]) => `${role} ${s.sent}`).join(", ");
    // Conditions run one after another; within one, each role has CONCURRENCY calls in flight and judgings
    // overlap answering. Bound: per condition, its busiest answering role's calls at full concurrency (baseline,
    // role and few-shot n model calls each; pivot 2n translations).
    const bound = 5 * TEST_SIZE * LATENCY_MS / 1000 / CONCURRENCY;
    const answered = TEST_SIZE * result.conditions.length;
    console.log(
      `  ${answered} answers (4 conditions) in ${seconds.toFixed(1)} s = ${
        (answered / seconds).toFixed(0)
      } answers/s; ` +
        `calls sent: ${sent}; bound (conditions in turn, busiest role at ${CONCURRENCY} in flight): ${
          bound.toFixed(1)
        } s; ` +
        `peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`,
    );
    await server.close();
    await Deno.remove(out, { recursive: true });
  },
});

Deno.bench({
  name: `permedcqa load: ${TRAIN_SIZE}-record train split (JSON, labels, Persian digits)`,
  n: 3,
  async fn() {
    await loadPerMedCqa(`${dir}/train.json`, { requireLabels: false });
  },
});

globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
