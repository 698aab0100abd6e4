/**
 * `deno run -A bench/view_bench.ts`: the viewer on a large run. Builds a synthetic LLMEval-Med run store of
 * VIEW_N samples (default 100,000; one answer and three judgings each, written straight through RunStore's
 * APIs), its summary (the benchmark's own rows and aggregation), and its viewer bundle (`deno task view`'s
 * code), then opens the bundle from file:// in headless Chromium and measures the issue's four goals:
 *
 * - first paint: navigation to the runs page shown with its content, < 2 s;
 * - a filter: a changed filter to the samples table shown with its new count, < 200 ms (median of several);
 * - a sample page: a sample's page shown with its conversation and verdicts, < 300 ms (median, chunks not
 *   loaded before);
 * - bundle size: every file of the bundle, ≤ 50 MB.
 *
 * Also reported: the time the samples table of the whole run first takes, the first search (which builds the
 * index) and a later one, and how long writing the store and the bundle took. Prints each beside its goal and
 * writes reports/bench/view.json. Run by hand, not in CI. VIEW_WORK=DIR keeps the synthetic run (and the bundle) in
 * DIR and reuses a run already there.
 * @module
 */
/// <reference lib="dom" />
import puppeteer from "puppeteer-core";
import { findChromium } from "../lib/report/chromium.ts";
import { ConfigError } from "../lib/core/errors.ts";
import type { Sample } from "../lib/core/sample.ts";
import type { StoredScore } from "../lib/core/records.ts";
import { RunStore } from "../lib/store/run_store.ts";
import { getTask } from "../lib/benchmarks/registry.ts";
import { readRunView } from "../lib/pipeline/evaluate.ts";
import { writeViewBundle } from "../lib/view/write_bundle.ts";
import { runBenchmark } from "../lib/cli/view.ts";
import { mulberry32 } from "../lib/stats/rng.ts";

const N = Number(Deno.env.get("VIEW_N") ?? 100_000);
const ROOT = new URL("..", import.meta.url).pathname;
const GOALS = { first_paint_ms: 2000, filter_ms: 200, sample_page_ms: 300, bundle_mb: 50 };

const CATEGORIES = [
  ["MK", "医疗知识", "疾病相关"],
  ["MLU", "医学语言理解", "信息抽取"],
  ["MR", "医学推理", "病症推断"],
  ["MSE", "医学安全伦理", "药品安全"],
  ["MTG", "医学文本生成", "总结/摘要"],
] as const;
const SUBJECTS = [
  "高血压",
  "2型糖尿病",
  "慢性阻塞性肺疾病",
  "冠心病",
  "哮喘",
  "慢性肾病",
  "甲状腺功能减退",
  "痛风",
  "骨质疏松",
  "偏头痛",
  "抑郁症",
  "类风湿关节炎",
];
const ASKS = [
  "的诊断标准有哪些",
  "的一线治疗药物是什么",
  "患者日常生活中应注意什么",
  "的常见并发症有哪些",
  "如何与相似疾病鉴别",
  "的病因和危险因素是什么",
];
const CLAUSES = [
  "首先应明确诊断并评估病情严重程度",
  "建议在医生指导下规范用药，不可自行停药或调整剂量",
  "需要定期复查相关指标，必要时进行影像学检查",
  "生活方式干预包括限盐、减重、规律运动和戒烟限酒",
  "若出现胸痛、呼吸困难或意识改变等症状应立即就医",
  "合并其他慢性病时需综合评估药物相互作用",
  "老年患者应注意药物不良反应及跌倒风险",
  "饮食上应保持均衡，控制总热量摄入",
  "心理支持和健康教育有助于提高治疗依从性",
  "部分患者需要长期随访，以便及时调整治疗方案",
  "实验室检查可帮助排除继发性因素",
  "孕妇和哺乳期妇女用药需格外谨慎",
];
const REASONS = [
  "回答覆盖了核心需求",
  "遗漏了次要需求中的随访建议",
  "关于用药的表述不够准确",
  "结构清晰，要点完整",
  "存在与参考答案不一致之处",
  "未提及需要立即就医的警示症状",
];

/** Returns `k` clauses drawn by `random`, joined as Chinese sentences. */
function prose(random: () => number, k: number): string {
  return Array.from({ length: k }, () => CLAUSES[Math.floor(random() * CLAUSES.length)]).join("；") + "。";
}

/** Writes a synthetic LLMEval-Med run of `n` samples into `dir` (store and summaries); returns the seconds taken. */
async function writeSyntheticRun(dir: string, n: number): Promise<number> {
  const started = performance.now();
  const random = mulberry32(20261124);
  const store = new RunStore(`${dir}/run.sqlite`);
  const prompts = { system: "a".repeat(64), judge: "b".repeat(64) };
  store.setManifest({
    identity: {
      benchmark: "llmeval-med",
      model: "synthetic-model",
      judge: "synthetic-judge",
      judge_runs: 3,
      data_sha256: "c".repeat(64),
      samples: n,
      prompts,
    },
    model: { name: "synthetic-model", label: "synthetic-model", offline: false },
    judge: { label: "synthetic-judge" },
    data: { path: "synthetic", sha256: "c".repeat(64), samples: n },
    code: { commit: "0".repeat(40), dirty: false },
    runtime: { deno: Deno.version.deno, os: Deno.build.os },
    created_at: new Date().toISOString(),
    config: { benchmark: "llmeval-med", model: "synthetic-model" },
    "condition:default": { kind: "baseline", prompts },
  });
  const samples: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const [category, name, category2] = CATEGORIES[i % CATEGORIES.length];
    const subject = SUBJECTS[Math.floor(random() * SUBJECTS.length)];
    const id = `${category}-${i + 1}-1`;
    samples.push({
      id,
      benchmark: "llmeval-med",
      input: `${subject}${ASKS[Math.floor(random() * ASKS.length)]}？（病例${i + 1}）`,
      reference: prose(random, 4),
      conversation: { id: `${category}-${i + 1}`, turn: 1 },
      fields: {
        category,
        category_name: name,
        category1: name,
        category2,
        scene: `${category2}_${subject}`,
        difficulty: ["easy", "medium", "hard"][i % 3],
        round: 1,
      },
      extra: { checklist: `核心需求：\n1. ${prose(random, 1)}\n2. ${prose(random, 1)}` },
    });
  }
  store.putSamples(samples);
  const system = "你是一名经验丰富的临床医生，请用中文准确、简洁地回答患者的问题。";
  for (const sample of samples) {
    const fail = random() < 0.005;
    const truncated = !fail && random() < 0.02;
    const answer = prose(random, 3 + Math.floor(random() * 5));
    const callKey = `m-${sample.id}`;
    if (!fail) {
      store.putCall({
        key: callKey,
        role: "model",
        model: "synthetic-model",
        request: {
          messages: [{ role: "system", content: system }, { role: "user", content: sample.input }],
          params: { maxTokens: 2048 },
        },
        text: answer,
        finishReason: truncated ? "length" : "stop",
        usage: { prompt: 40 + Math.floor(random() * 40), completion: 100 + Math.floor(random() * 300) },
        attempts: random() < 0.03 ? 2 : 1,
        latencyMs: 400 + random() * 2000,
        createdAt: new Date().toISOString(),
        endpoint: random() < 0.5 ? "gpu-a/v1" : "gpu-b/v1",
        condition: "default",
      });
    }
    store.putOutput({
      sampleId: sample.id,
      condition: "default",
      callKey: fail ? null : callKey,
      text: fail ? null : answer,
      error: fail ? "HTTP 500 after 6 retries" : null,
      detail: null,
    });
    if (fail) continue;
    const quality = 1 + Math.floor(random() * 5);
    for (let run = 1; run <= 3; run++) {
      const invalid = random() < 0.01;
      const value = Math.max(1, Math.min(5, quality + (random() < 0.3 ? (random() < 0.5 ? -1 : 1) : 0)));
      const reason = `${REASONS[Math.floor(random() * REASONS.length)]}，${
        REASONS[Math.floor(random() * REASONS.length)]
      }。`;
      const judgeKey = `j-${sample.id}-${run}`;
      store.putCall({
        key: judgeKey,
        role: "judge",
        model: "synthetic-judge",
        request: {
          messages: [{ role: "user", content: `请根据清单评分：${sample.input}` }],
          params: { seed: run - 1 },
        },
        text: invalid ? "无法评分" : JSON.stringify({ score: value, reason }),
        finishReason: "stop",
        usage: { prompt: 600, completion: 60 },
        attempts: 1,
        latencyMs: 300 + random() * 900,
        createdAt: new Date().toISOString(),
        endpoint: null,
        condition: "default",
      });
      const score: StoredScore = {
        sampleId: sample.id,
        condition: "default",
        scorer: "judge",
        judge: "synthetic-judge",
        run,
        value: invalid ? null : value,
        values: null,
        valid: !invalid,
        reason: invalid ? "the judge's reply held no score" : reason,
        callKey: judgeKey,
        detail: invalid ? { attempts: 3 } : { verdict: { score: value, reason, read: "json" }, attempts: 1 },
      };
      store.putScore(score);
    }
  }
  store.flush();
  const task = await getTask("llmeval-med");
  const labels = {
    benchmark: "llmeval-med",
    model: "synthetic-model",
    judge: "synthetic-judge",
    condition: "default",
    offline: false,
    judgeRuns: 3,
  };
  const view = readRunView(store, "default");
  const summary = task.aggregate(task.rows(view, labels), view, labels);
  summary.usage = [];
  await Deno.writeTextFile(`${dir}/summaries.json`, JSON.stringify([summary], null, 2));
  store.close();
  return (performance.now() - started) / 1000;
}

/** Total bytes of the files under `dir`. */
async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    total += entry.isDirectory ? await folderBytes(path) : (await Deno.stat(path)).size;
  }
  return total;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function round(x: number, digits = 1): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

/** Measures the bundle at `index` in headless Chromium (the executable at `chromium`). */
async function measureInChromium(index: string, ids: string[], chromium: string) {
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-dev-shm-usage",
    ],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push((e as Error).message));
    /** Goes to `hash` inside the page and returns the milliseconds until the page marks it ready. */
    const timeHash = (hash: string) =>
      page.evaluate((h) =>
        new Promise<number>((resolve) => {
          const main = document.querySelector("main")!;
          const t0 = performance.now();
          const observer = new MutationObserver(() => {
            if (main.dataset.ready === h) {
              observer.disconnect();
              resolve(performance.now() - t0);
            }
          });
          observer.observe(main, { attributes: true, attributeFilter: ["data-ready"] });
          location.hash = h;
        }), hash);
    const ready = (hash: string) =>
      page.waitForFunction(
        (h) => document.querySelector("main")?.dataset.ready === h,
        { timeout: 600_000 },
        hash,
      );

    await page.goto(`file://${index}`);
    await ready("#/");
    const firstPaint = await page.evaluate(() => performance.now());
    const paint = await page.evaluate(() =>
      performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null
    );

    const tableMs = await timeHash("#/samples?run=r0");
    const filters = [
      "#/samples?run=r0&g.category=MK",
      "#/samples?run=r0&g.category=MK&smin=4",
      "#/samples?run=r0&flag=judgeError",
      "#/samples?run=r0&flag=truncated",
      "#/samples?run=r0&g.difficulty=hard&smin=2&smax=3",
      "#/samples?run=r0&count=usability&m.usability=0",
      "#/samples?run=r0",
    ];
    const filterMs: number[] = [];
    for (const hash of filters) filterMs.push(await timeHash(hash));

    const sampleMs: number[] = [];
    for (const id of ids) sampleMs.push(await timeHash(`#/sample?run=r0&id=${encodeURIComponent(id)}`));

    const searchFirstMs = await timeHash(`#/samples?run=r0&q=${encodeURIComponent("高血压 诊断标准")}`);
    const searchAgainMs = await timeHash(`#/samples?run=r0&q=${encodeURIComponent("慢性肾病")}`);
    const hits = await page.evaluate(() => document.querySelector(".count")?.textContent ?? "");
    if (errors.length) throw new Error(`the page threw: ${errors[0]}`);
    return { firstPaint, paint, tableMs, filterMs, sampleMs, searchFirstMs, searchAgainMs, hits };
  } finally {
    await browser.close();
  }
}

/** Builds the synthetic run and its viewer, measures it in Chromium (at `chromium`), prints and writes the report. */
async function benchViewer(chromium: string): Promise<void> {
  const kept = Deno.env.get("VIEW_WORK");
  const work = kept ?? await Deno.makeTempDir({ prefix: "medeval-view-bench-" });
  try {
    const runDir = `${work}/run`;
    let storeSeconds = 0;
    try {
      await Deno.stat(`${runDir}/summaries.json`);
      console.log(`using the synthetic run in ${runDir}`);
    } catch {
      await Deno.mkdir(runDir, { recursive: true });
      console.log(`writing a synthetic LLMEval-Med run of ${N} samples …`);
      storeSeconds = await writeSyntheticRun(runDir, N);
    }
    console.log(`writing its viewer …`);
    const bundleStarted = performance.now();
    const bundle = await writeViewBundle({
      runs: [{ dir: runDir, benchmark: await runBenchmark(runDir) }],
      out: `${work}/view`,
    });
    const bundleSeconds = (performance.now() - bundleStarted) / 1000;
    const bytes = await folderBytes(`${work}/view`);
    const random = mulberry32(7);
    const ids = Array.from({ length: 7 }, () => {
      const i = Math.floor(random() * N);
      return `${["MK", "MLU", "MR", "MSE", "MTG"][i % 5]}-${i + 1}-1`;
    });
    console.log(`measuring in Chromium …`);
    const m = await measureInChromium(bundle.index, ids, chromium);
    const report = {
      n: N,
      goals: GOALS,
      first_paint_ms: round(m.firstPaint),
      first_contentful_paint_ms: m.paint === null ? null : round(m.paint),
      filter_ms: {
        median: round(median(m.filterMs)),
        max: round(Math.max(...m.filterMs)),
        each: m.filterMs.map((x) => round(x)),
      },
      sample_page_ms: {
        median: round(median(m.sampleMs)),
        max: round(Math.max(...m.sampleMs)),
        each: m.sampleMs.map((x) => round(x)),
      },
      bundle_mb: round(bytes / 1e6, 2),
      bytes_per_sample: Math.round(bytes / N),
      samples_table_first_ms: round(m.tableMs),
      search_first_ms: round(m.searchFirstMs),
      search_again_ms: round(m.searchAgainMs),
      search_hits: m.hits,
      write_store_s: round(storeSeconds),
      write_bundle_s: round(bundleSeconds),
      chromium: await new Deno.Command(chromium, { args: ["--version"] }).output().then((o) =>
        new TextDecoder().decode(o.stdout).trim()
      ).catch(() => "unknown"),
    };
    const rows: [string, string, string, boolean][] = [
      [
        "first paint (runs page)",
        `${report.first_paint_ms} ms`,
        `< ${GOALS.first_paint_ms} ms`,
        report.first_paint_ms < GOALS.first_paint_ms,
      ],
      [
        "a filter (median)",
        `${report.filter_ms.median} ms (max ${report.filter_ms.max})`,
        `< ${GOALS.filter_ms} ms`,
        report.filter_ms.median < GOALS.filter_ms,
      ],
      [
        "a sample page (median)",
        `${report.sample_page_ms.median} ms (max ${report.sample_page_ms.max})`,
        `< ${GOALS.sample_page_ms} ms`,
        report.sample_page_ms.median < GOALS.sample_page_ms,
      ],
      [
        "bundle size",
        `${report.bundle_mb} MB (${report.bytes_per_sample} B/sample)`,
        `≤ ${GOALS.bundle_mb} MB`,
        report.bundle_mb <= GOALS.bundle_mb,
      ],
    ];
    console.log(`\nviewer of a ${N}-sample run (${report.chromium}):`);
    for (const [what, got, goal, ok] of rows) {
      console.log(`  ${what.padEnd(24)} ${got.padEnd(34)} goal ${goal.padEnd(10)} ${ok ? "met" : "MISSED"}`);
    }
    console.log(
      `  samples table first shown ${report.samples_table_first_ms} ms; first search (builds the index) ${report.search_first_ms} ms, next ${report.search_again_ms} ms (${report.search_hits})`,
    );
    console.log(`  store written in ${report.write_store_s} s, bundle in ${report.write_bundle_s} s`);
    await Deno.mkdir(`${ROOT}reports/bench`, { recursive: true });
    await Deno.writeTextFile(`${ROOT}reports/bench/view.json`, JSON.stringify(report, null, 2) + "\n");
    console.log(`written: reports/bench/view.json`);
  } finally {
    if (!kept) await Deno.remove(work, { recursive: true });
  }
}

/** Chromium's path, or why it cannot be used (the bench is then skipped, saying so: no figure of it is made up). */
function chromiumOrSkip(): string | { skipped: string } {
  try {
    return findChromium();
  } catch (err) {
    if (err instanceof ConfigError) return { skipped: err.message };
    throw err;
  }
}

const chromium = chromiumOrSkip();
if (typeof chromium === "string") {
  await benchViewer(chromium);
} else {
  console.log(`viewer bench skipped: ${chromium.skipped}`);
  await Deno.mkdir(`${ROOT}reports/bench`, { recursive: true });
  await Deno.writeTextFile(
    `${ROOT}reports/bench/view.json`,
    JSON.stringify({ n: N, goals: GOALS, ...chromium }, null, 2) + "\n",
  );
}
