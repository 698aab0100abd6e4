/**
 * `deno task bench:scale` (part of `deno task bench`): throughput, memory and rerun speed of whole evaluation
 * runs against the fake OpenAI-compatible server (its own process, 100 ms latency), 64 requests in flight, written
 * as a JSON report to `reports/bench/scale.json`. Bound = N · latency / concurrency (+ one latency per round):
 * the time a run would take if the network were the only limit.
 *
 * Settings by environment: SCALE_N (default 5000), SCALE_MEMORY_N (default 33735), SCALE_COMPARE_N (default
 * 2000: promptfoo and medeval side by side), SCALE_SKIP (comma list of sections to leave out: inprocess,
 * command, memory, rerun, ratelimit, promptfoo).
 * @module
 */
import { runEval } from "../lib/pipeline/run_eval.ts";
import type { EvalConfig } from "../lib/pipeline/eval_config.ts";
import { writeChoiceItems, writeOpenQuestions } from "./scale_data.ts";
import { startChildServer } from "./child_server.ts";

const LATENCY_MS = 100;
const CONCURRENCY = 64;
const N = Number(Deno.env.get("SCALE_N") ?? 5000);
const MEMORY_N = Number(Deno.env.get("SCALE_MEMORY_N") ?? 33_735);
const COMPARE_N = Number(Deno.env.get("SCALE_COMPARE_N") ?? 2000);
const SKIP = new Set((Deno.env.get("SCALE_SKIP") ?? "").split(",").filter(Boolean));
const ROOT = new URL("..", import.meta.url).pathname;

/** A fake server process and its URL. */
interface FakeProcess {
  url: string;
  close(): Promise<void>;
}

/** Starts bench/fake_server_process.ts and waits for its URL. */
async function startFake(): Promise<FakeProcess> {
  const server = await startChildServer(`${ROOT}bench/fake_server_process.ts`, [
    "--latency",
    String(LATENCY_MS),
  ]);
  return { url: JSON.parse(server.line).url, close: server.close };
}

/** The bound of `calls` calls in `rounds` dependent rounds: calls · latency / concurrency + one latency per round. */
function boundSeconds(calls: number, rounds = 1): number {
  return (calls * LATENCY_MS / CONCURRENCY + rounds * LATENCY_MS) / 1000;
}

/** One measured run. */
interface Measure {
  n: number;
  seconds: number;
  bound_seconds: number;
  of_bound: number;
  per_second: number;
  peak_rss_mb?: number;
  failures?: number;
  /** Exit code of a whole command (0: complete run). */
  exit_code?: number;
}

function measure(n: number, seconds: number, bound: number, extra: Partial<Measure> = {}): Measure {
  return {
    n,
    seconds: round(seconds),
    bound_seconds: round(bound),
    of_bound: round(bound / seconds),
    per_second: round(n / seconds),
    ...extra,
  };
}

function round(x: number, digits = 3): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

/** The eval settings of a one-call run (CliMedBench choice items) or a judged run (LLMEval-Med, one judging). */
function config(kind: "one-call" | "judged", data: string, out: string, url: string): EvalConfig {
  return kind === "one-call"
    ? {
      benchmark: "climedbench",
      model: "fake-model",
      baseUrl: url,
      data,
      out,
      concurrency: CONCURRENCY,
      progress: false,
      renderFigures: false,
    }
    : {
      benchmark: "llmeval-med",
      model: "fake-model",
      baseUrl: url,
      judge: "fake-judge",
      judgeBaseUrl: url,
      judgeRuns: 1,
      data,
      out,
      concurrency: CONCURRENCY,
      judgeConcurrency: CONCURRENCY,
      progress: false,
      renderFigures: false,
    };
}

/** The same settings as command-line flags. */
function flags(kind: "one-call" | "judged", data: string, out: string, url: string): string[] {
  const common = [
    "--model",
    "fake-model",
    "--base-url",
    url,
    "--data",
    data,
    "--out",
    out,
    "--concurrency",
    String(CONCURRENCY),
    "--no-render",
    "--quiet",
  ];
  return kind === "one-call"
    ? ["climedbench", ...common]
    : ["llmeval-med", ...common, "--judge", "fake-judge", "--judge-runs", "1", "--judge-concurrency", "64"];
}

async function writeData(kind: "one-call" | "judged", n: number, dir: string): Promise<string> {
  const path = `${dir}/${kind}-${n}.${kind === "one-call" ? "jsonl" : "json"}`;
  if (kind === "one-call") await writeChoiceItems(path, n);
  else await writeOpenQuestions(path, n);
  return path;
}

/** Runs `deno task eval` as a whole command under /usr/bin/time; returns wall seconds and peak RSS. */
async function runCommand(args: string[]): Promise<{ seconds: number; peakRssMb: number; code: number }> {
  const timeFile = await Deno.makeTempFile();
  const started = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: [
      "-f",
      "%M",
      "-o",
      timeFile,
      Deno.execPath(),
      "run",
      "-A",
      `${ROOT}lib/cli/main.ts`,
      "eval",
      ...args,
    ],
    stdout: "null",
    stderr: "piped",
    cwd: ROOT,
  }).output();
  const seconds = (performance.now() - started) / 1000;
  const kb = Number((await Deno.readTextFile(timeFile)).trim().split("\n").at(-1));
  await Deno.remove(timeFile);
  if (out.code !== 0) console.error(new TextDecoder().decode(out.stderr));
  return { seconds, peakRssMb: round(kb / 1024, 1), code: out.code };
}

/** promptfoo and medeval as whole commands on the same fake, N and concurrency: seconds and their ratio. */
async function comparePromptfoo(url: string, dir: string): Promise<Record<string, unknown>> {
  const { runPromptfoo } = await import("./promptfoo_compare.ts");
  const out: Record<string, unknown> = {};
  for (const kind of ["one-call", "judged"] as const) {
    const theirs = await runPromptfoo({
      baseUrl: url,
      samples: COMPARE_N,
      concurrency: CONCURRENCY,
      judged: kind === "judged",
    });
    if ("skipped" in theirs) return { skipped: theirs.skipped };
    const data = await writeData(kind, COMPARE_N, dir);
    const ours = await runCommand(flags(kind, data, `${dir}/cmp-${kind}`, url));
    out[kind] = {
      promptfoo: {
        ...theirs,
        of_bound: round(boundSeconds(COMPARE_N, kind === "judged" ? 2 : 1) / theirs.seconds),
      },
      medeval: measure(COMPARE_N, ours.seconds, boundSeconds(COMPARE_N, kind === "judged" ? 2 : 1)),
      promptfoo_over_medeval: round(theirs.seconds / ours.seconds, 2),
    };
    console.error(`promptfoo ${kind}: ${JSON.stringify(out[kind])}`);
  }
  return out;
}

/** Throughput against a fake that enforces a server-side rate (see bench/rate_limit_bench.ts). */
async function rateLimited(): Promise<unknown> {
  const { measureRateLimited } = await import("./rate_limit_bench.ts");
  const result = await measureRateLimited();
  console.error(`rate limited: ${JSON.stringify(result)}`);
  return result;
}

async function main(): Promise<void> {
  const fake = await startFake();
  const dir = await Deno.makeTempDir({ prefix: "medeval-scale-" });
  const report: Record<string, unknown> = {
    settings: {
      latency_ms: LATENCY_MS,
      concurrency: CONCURRENCY,
      n: N,
      memory_n: MEMORY_N,
      compare_n: COMPARE_N,
    },
    machine: { cores: navigator.hardwareConcurrency, deno: Deno.version.deno, os: Deno.build.os },
  };
  try {
    const data = {
      "one-call": await writeData("one-call", N, dir),
      judged: await writeData("judged", N, dir),
    };
    if (!SKIP.has("inprocess")) {
      const section: Record<string, Measure | { n: number; seconds: number; per_second: number }> = {};
      for (const kind of ["one-call", "judged"] as const) {
        const out = `${dir}/in-${kind}`;
        const started = performance.now();
        const result = await runEval(config(kind, data[kind], out, fake.url));
        const seconds = (performance.now() - started) / 1000;
        section[kind] = measure(N, seconds, boundSeconds(N, kind === "judged" ? 2 : 1), {
          failures: result.failures,
        });
        if (!SKIP.has("rerun")) {
          const again = performance.now();
          await runEval({ ...config(kind, data[kind], out, fake.url), resume: true });
          const rerun = (performance.now() - again) / 1000;
          section[`${kind} rerun from store`] = { n: N, seconds: round(rerun), per_second: round(N / rerun) };
        }
        console.error(`in process ${kind}: ${JSON.stringify(section[kind])}`);
      }
      report.in_process = section;
    }
    if (!SKIP.has("command")) {
      const section: Record<string, Measure> = {};
      for (const kind of ["one-call", "judged"] as const) {
        const run = await runCommand(flags(kind, data[kind], `${dir}/cmd-${kind}`, fake.url));
        section[kind] = measure(N, run.seconds, boundSeconds(N, kind === "judged" ? 2 : 1), {
          peak_rss_mb: run.peakRssMb,
          exit_code: run.code,
        });
        console.error(`command ${kind}: ${JSON.stringify(section[kind])}`);
      }
      report.command = section;
    }
    if (!SKIP.has("memory")) {
      const section: Record<string, Measure> = {};
      for (const n of [...new Set([Math.min(5000, MEMORY_N), MEMORY_N])]) {
        const path = await writeData("one-call", n, dir);
        const run = await runCommand(flags("one-call", path, `${dir}/mem-${n}`, fake.url));
        section[`one-call ${n}`] = measure(n, run.seconds, boundSeconds(n), {
          peak_rss_mb: run.peakRssMb,
          exit_code: run.code,
        });
        console.error(`memory ${n}: ${JSON.stringify(section[`one-call ${n}`])}`);
      }
      report.memory = section;
    }
    if (!SKIP.has("promptfoo")) report.promptfoo = await comparePromptfoo(fake.url, dir);
    if (!SKIP.has("ratelimit")) report.rate_limited = await rateLimited();
  } finally {
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
  await Deno.mkdir(`${ROOT}reports/bench`, { recursive: true });
  await Deno.writeTextFile(`${ROOT}reports/bench/scale.json`, JSON.stringify(report, null, 2) + "\n");
  console.log(JSON.stringify(report, null, 2));
}

if (import.meta.main) await main();
