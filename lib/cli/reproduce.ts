/**
 * `deno task reproduce`: re-creates the four papers' tables and figures from `data/papers/*.json`, recomputes
 * their claims, runs every benchmark's pipeline on the data the project has (offline baselines, labelled as
 * such, and the real models when configured), and links everything from `reports/index.html`.
 *
 * Outputs (under the root): `reports/papers/<paper>/<table>.{md,csv,tex}` and `<table>_cells.csv`,
 * `figures/papers/<paper>/*.{svg,png,pdf,html}`, `reports/claims.{md,json}`, `reports/runs/<benchmark>/*`,
 * `figures/runs/<benchmark>/*`, `reports/index.html`; run stores under `runs/reproduce/`.
 * @module
 */
import { writeRunsViewer } from "./view.ts";
import { writeReportComparison } from "./compare.ts";
import { writeReportPower } from "./power.ts";
import type { LetterLookup } from "../compare/paper_letters.ts";
import { ConfigError } from "../core/errors.ts";
import { pathExists, projectPath, safeName } from "../core/fs.ts";
import type { Task } from "../core/task.ts";
import { codeVersion } from "../core/version.ts";
import { BENCHMARKS, getTask } from "../benchmarks/registry.ts";
import { checkClaims, type DataFacts } from "../papers/claims.ts";
import { writeClaims } from "../papers/claims_report.ts";
import { indexPage, type RunSection } from "../papers/index_page.ts";
import { loadPapers } from "../papers/paper.ts";
import { datasetFacts, type PaperOutputs, writePaperTables } from "../papers/write_paper.ts";
import { comparisonEntries, type ComparisonEntry } from "../papers/paper_tables.ts";
import { sampleCat } from "../irt/sample_cat.ts";
import { formatEstimate } from "../report/tables.ts";
import { REPHRASER } from "../robustness/sets.ts";
import { OFFLINE_JUDGES, OFFLINE_MODELS } from "../benchmarks/stand_ins.ts";
import { checkNumber, evalOption } from "../pipeline/eval_options.ts";
import { executeEval } from "../pipeline/run_eval.ts";
import { type EvalPlan, loadEvalData, planEval } from "../pipeline/plan.ts";
import { exportFigureSets, type FigureSet, type ImageFormat } from "../report/figures.ts";
import { groupBarFigure, overviewTable, runFigures } from "../report/run_report.ts";
import type { Table } from "../core/report_spec.ts";
import type { Summary } from "../core/summary.ts";
import { groupTables, intervalLines, outcomesLines, toMarkdown, writeTable } from "../report/tables.ts";
import { downloadedPath, DOWNLOADS } from "./download.ts";
import { projectTaskFiles } from "../task_file/index.ts";
import { readTaskFile } from "../task_file/schema.ts";
import { declaredPerturbations } from "../task_file/task.ts";

/** Options of {@linkcode reproduce}. */
export interface ReproduceOptions {
  /** Directory under which `figures/`, `reports/` and `runs/` are written. */
  root: string;
  /** Render images with Chromium (default `true`); HTML figures are always written. */
  render?: boolean;
  /** Image formats to render (default SVG, PNG and PDF). */
  formats?: readonly ImageFormat[];
  /** Real models to evaluate on every benchmark (OpenAI-compatible names). */
  models?: readonly string[];
  /** Their base URL (default `$OPENAI_BASE_URL`). */
  baseUrl?: string;
  /** Judge model for judge-scored benchmarks, required with `models`. */
  judge?: string;
  /** Rephraser model for robustness sets A and B (`MEDEVAL_REPHRASER_MODEL`); real models get robustness sets only with it. */
  rephraser?: string;
  /** Evaluate at most this many samples per benchmark with real models (cost control). */
  limit?: number;
  /** Directory holding the full data sets as `<benchmark>/<file>` (default `data/downloads`). */
  dataDir?: string;
  /** Folder of paper files (default `data/papers/`). */
  papersDir?: string;
  /** Print progress lines (default `true`). */
  log?: boolean;
}

/** The settings `reproduce` reads from the environment: models, judge, base URL, limit, data directory. */
export function reproduceEnv(
  env: { get(name: string): string | undefined } = Deno.env,
): Partial<ReproduceOptions> {
  const models = env.get("MEDEVAL_MODELS")?.split(",").map((m) => m.trim()).filter(Boolean);
  const limit = env.get("MEDEVAL_LIMIT");
  if (limit !== undefined) checkNumber(evalOption("limit")!, Number(limit), "MEDEVAL_LIMIT");
  return {
    models: models?.length ? models : undefined,
    judge: env.get("MEDEVAL_JUDGE_MODEL") || undefined,
    rephraser: env.get("MEDEVAL_REPHRASER_MODEL") || undefined,
    baseUrl: env.get("OPENAI_BASE_URL") || undefined,
    limit: limit === undefined ? undefined : Number(limit),
    dataDir: env.get("MEDEVAL_DATA_DIR") || undefined,
  };
}

/** Returns the path of the full data set of `benchmark` when present, else `undefined`. */
async function fullDataPath(benchmark: string, dataDir?: string): Promise<string | undefined> {
  if (!DOWNLOADS[benchmark]) return undefined;
  const path = downloadedPath(benchmark, dataDir);
  return (await pathExists(path)) ? path : undefined;
}

interface BenchmarkRun {
  section: RunSection;
  summaries: Summary[];
  figures: FigureSet;
  facts?: Record<string, number>;
  /** Our real models' letters by paper cell, when several were compared on the same items. */
  letters?: LetterLookup;
}

/** One benchmark's runs, checked before any of them starts. */
interface BenchmarkPlan {
  name: string;
  task: Task;
  /** The task file it is declared in (`tasks/*.yaml`), for task-file benchmarks. */
  taskFile?: string;
  /** The full data set's path, when it is downloaded. */
  full?: string;
  needsJudge: boolean;
  runs: { model: string; plan: EvalPlan }[];
}

/** The offline judge stand-in every judge scorer of `task` can read (default `offline:overlap`). */
function offlineJudgeOf(task: Task): string {
  const judged = task.scorers.filter((s) => s.roles.includes("judge"));
  const shared = judged[0]?.offline?.find((name) => judged.every((s) => s.offline?.includes(name)));
  return shared ?? "offline:overlap";
}

/**
 * The ablations shown on the offline retrieval baseline of tasks with a role table: pivot translation through
 * English (with the `offline:identity` translator: it exercises the pipeline and translates nothing), role
 * prompting, and few-shot when the task has a train split.
 */
function demoAblations(task: Task): string[] {
  if (!task.roleTable) return [];
  return [
    ...(task.language !== "en" ? ["pivot:en"] : []),
    "role",
    ...(task.auxiliary?.some((a) => a.name === "train") ? ["fewshot"] : []),
  ];
}

/**
 * The ablations shown on the offline retrieval baseline of a task file: the conditions it declares (`cot`,
 * `fewshot`, and its first perturbation kind).
 */
async function taskFileAblations(path: string): Promise<string[]> {
  const spec = await readTaskFile(path);
  const declared = spec.conditions ?? [];
  const kinds = declaredPerturbations(spec);
  return [
    ...(declared.includes("cot") ? ["cot"] : []),
    ...(declared.includes("fewshot") ? ["fewshot"] : []),
    ...(kinds.length ? [`perturb:${kinds[0]}`] : []),
  ];
}

/**
 * Checks that no two of a benchmark's runs would share a run directory (`runs/reproduce/<benchmark>/<model>`):
 * a model given in `--models` that is one of the benchmark's offline baselines, a model given twice, or two
 * names alike once made file-safe (`a/b`, `a_b`; or `A`, `a`, one folder where file names ignore case) is a
 * {@linkcode ConfigError} naming it. Such runs are refused rather than given directories of their own: the
 * benchmark's tables name each run's rows and files by its model, so two runs of one model could not be told
 * apart there, and a stand-in is never placed beside the papers' rows nor compared, which is what `--models` is
 * for (`deno task eval --model offline:reference --judge NAME` scores a stand-in with a judge of yours).
 */
function checkRunDirs(name: string, runs: readonly { model: string; real: boolean }[]): void {
  const byDir = new Map<string, { model: string; real: boolean }>();
  for (const run of runs) {
    const dir = safeName(run.model);
    // Names that differ only in case share a folder where file names ignore case (macOS, Windows).
    const earlier = byDir.get(dir.toLowerCase());
    byDir.set(dir.toLowerCase(), earlier ?? run);
    if (!earlier) continue;
    const where = `runs/reproduce/${name}/${dir}`;
    throw new ConfigError(
      !earlier.real && earlier.model === run.model
        ? `--models (MEDEVAL_MODELS): ${run.model} is an offline baseline reproduce runs on ${name} anyway ` +
          `(${where}); leave it out`
        : earlier.model === run.model
        ? `--models (MEDEVAL_MODELS): ${run.model} is given twice`
        : `--models (MEDEVAL_MODELS): ${earlier.model} and ${run.model} would share the run directory ${where}; ` +
          "evaluate one of them with deno task eval",
    );
  }
}

/**
 * Plans one benchmark's runs (offline baselines always, real models when configured), each in a directory of
 * its own ({@linkcode checkRunDirs}); writes nothing. A task file's benchmark is named by its path (`taskFile`).
 */
async function planBenchmark(
  name: string,
  task: Task,
  options: ReproduceOptions,
  taskFile?: string,
): Promise<BenchmarkPlan> {
  const full = await fullDataPath(name, options.dataDir);
  const data = await loadEvalData(task, full);
  const needsJudge = task.scorers.some((s) => s.roles.includes("judge"));
  const offlineJudge = needsJudge ? offlineJudgeOf(task) : undefined;
  // Data without reference answers (MedGPTEval) has no ceiling or retrieval floor: the question's echo stands in.
  const referenced = data.samples.some((s) => s.reference !== null);
  const runs: { model: string; judge?: string; real: boolean; ablations?: string[]; robustness?: boolean }[] =
    [
      ...(referenced ? [{ model: "offline:reference", judge: offlineJudge, real: false }] : []),
      {
        model: referenced ? "offline:retrieval" : "offline:echo",
        judge: offlineJudge,
        real: false,
        ablations: taskFile ? await taskFileAblations(taskFile) : demoAblations(task),
        robustness: task.robustness !== undefined,
      },
    ];
  for (const model of options.models ?? []) {
    if (needsJudge && !options.judge) {
      throw new ConfigError(
        `${name} is judge-scored: set MEDEVAL_JUDGE_MODEL (or --judge) along with the models`,
      );
    }
    runs.push({
      model,
      judge: needsJudge ? options.judge : undefined,
      real: true,
      robustness: task.robustness !== undefined && options.rephraser !== undefined,
    });
  }
  checkRunDirs(name, runs);
  const planned: BenchmarkPlan["runs"] = [];
  for (const run of runs) {
    const out = `${options.root}/runs/reproduce/${name}/${safeName(run.model)}`;
    const resume = run.real && (await pathExists(`${out}/run.sqlite`));
    const plan = await planEval({
      benchmark: taskFile ?? name,
      model: run.model,
      baseUrl: run.real ? options.baseUrl : undefined,
      ...(needsJudge
        ? {
          judge: run.judge,
          judgeBaseUrl: run.real ? options.baseUrl : undefined,
          judgeRuns: run.real ? undefined : 1,
        }
        : {}),
      limit: run.real ? options.limit : undefined,
      ...(run.robustness
        ? {
          robustness: true,
          roles: [`${REPHRASER}=${run.real ? options.rephraser : "offline:rephraser"}`],
          ...(run.real && options.baseUrl ? { roleBaseUrls: [`${REPHRASER}=${options.baseUrl}`] } : {}),
        }
        : {}),
      ...(run.ablations?.length
        ? {
          ablations: run.ablations,
          translator: run.ablations.some((a) => a.startsWith("pivot:")) ? "offline:identity" : undefined,
        }
        : {}),
      data: data.path,
      out,
      resume,
      // Offline baselines are recomputed from scratch every time; real models' runs are resumed.
      replace: !run.real,
      progress: false,
      renderFigures: false,
    }, data);
    planned.push({ model: run.model, plan });
  }
  return { name, task, taskFile, full, needsJudge, runs: planned };
}

/** Returns the note naming the offline baselines of a benchmark's runs and their offline judge. */
function offlineNote(planned: BenchmarkPlan): string {
  const models = planned.runs.map((r) => r.model).filter((m) => m.startsWith("offline:"));
  const given = planned.runs[0]?.plan.config.judge;
  const judge = Array.isArray(given) ? given.join(" + ") : given;
  return `OFFLINE baselines (not model results): ${
    models.map((m) => `${m} ${OFFLINE_MODELS[m]}`).join("; ")
  }` +
    (judge ? `; scored by ${judge}, ${OFFLINE_JUDGES[judge] ?? "an offline stand-in"}.` : ".");
}

/**
 * Runs one planned benchmark and writes its tables; with several real models, their comparison (with
 * `paperMetrics`, the metrics paper tables show them by, besides the benchmark's own).
 */
async function runBenchmark(
  planned: BenchmarkPlan,
  options: ReproduceOptions,
  paperMetrics: readonly string[] = [],
): Promise<BenchmarkRun> {
  const { name, task, full, needsJudge } = planned;
  const summaries: Summary[] = [];
  const realDirs: string[] = [];
  const conditionRuns: { model: string; summaries: Summary[]; tables: Record<string, Table> }[] = [];
  let facts: Record<string, number> | undefined;
  for (const run of planned.runs) {
    if (options.log !== false) {
      console.log(`reproduce: ${name} · ${run.model}${run.plan.config.resume ? " (resuming)" : ""}`);
    }
    const result = await executeEval(run.plan);
    if (result.failures > 0) {
      throw new ConfigError(
        `${name} · ${run.model}: ${result.failures} calls failed for good; rerun \`deno task reproduce\` to resume`,
      );
    }
    summaries.push(result.summary);
    if (!result.summary.offline) realDirs.push(run.plan.config.out);
    if (result.conditions.length > 1) {
      conditionRuns.push({ model: run.model, summaries: result.conditions, tables: result.comparisons });
    }
    // the first run (an offline baseline, never limited) saw the whole file
    if (full && !facts) facts = datasetFacts(result.samples, task.groupFields);
  }
  const dirRel = `reports/runs/${name}`;
  const figuresRel = `figures/runs/${name}`;
  await Deno.remove(`${options.root}/${dirRel}`, { recursive: true }).catch(() => {});
  const tables = [{ id: "overview", table: overviewTable(summaries, task.report) }];
  for (const summary of summaries) {
    for (
      const [field, table] of Object.entries(groupTables(summary, task.report.metrics, task.report.groups))
    ) {
      tables.push({ id: `${safeName(summary.model)}_${field}`, table });
    }
  }
  // The benchmark's own tables get the outcomes footnote the run's tables carry.
  const withOutcomes = (table: Table): Table => ({
    ...table,
    notes: [
      ...table.notes,
      ...[...intervalLines(summaries), ...outcomesLines(summaries)].filter((line) =>
        !table.notes.includes(line)
      ),
    ],
  });
  for (const [id, table] of Object.entries(task.report.tables?.(summaries) ?? {})) {
    tables.push({ id, table: withOutcomes(table) });
  }
  for (const summary of summaries) {
    for (const [id, table] of Object.entries(task.report.tables?.([summary]) ?? {})) {
      if (summaries.length === 1 || !(id in (task.report.tables?.(summaries) ?? {}))) {
        tables.push({ id: `${safeName(summary.model)}_${id}`, table });
      }
    }
  }
  const figures = runFigures(summaries, task.report);
  for (const run of conditionRuns) {
    const field = task.groupFields[0];
    figures[`conditions_${safeName(run.model)}`] = groupBarFigure(
      run.summaries,
      field,
      task.report.metrics[0],
      task.report.groups,
    );
    for (const [id, table] of Object.entries(run.tables)) {
      tables.push({ id: `${safeName(run.model)}_${id}`, table });
    }
  }
  const written = [];
  for (const { id, table } of tables) {
    const files = await writeTable(`${options.root}/${dirRel}`, id, table);
    written.push({ id, table, files: files.map((f) => f.slice(options.root.length + 1)) });
  }
  // Several real models on the same items: paired comparison (comparison.*); every benchmark: its power.
  const reportDir = `${options.root}/${dirRel}`;
  const compared = realDirs.length >= 2
    ? await writeReportComparison(realDirs, paperMetrics, reportDir)
    : undefined;
  if (compared) Object.assign(figures, compared.figures);
  const power = await writeReportPower(task, realDirs, summaries[0].n, reportDir);
  if (power) {
    written.push({
      id: "power",
      table: power.table,
      files: power.files.map((f) => f.slice(options.root.length + 1)),
    });
  }
  const dataNote = planned.taskFile
    ? `Data: the task file's data (${summaries[0].n} samples); task file ${
      planned.taskFile.slice(projectPath().length)
    }.`
    : full
    ? `Data: the full data set (${summaries[0].n} samples).`
    : `Data: the sample the project ships (${
      summaries[0].n
    } samples); run \`deno task download ${name}\` for the full set.`;
  const notes = [
    dataNote,
    offlineNote(planned),
    options.models?.length
      ? `Real models: ${options.models.join(", ")}${needsJudge ? `; judge ${options.judge}` : ""}${
        options.limit ? `; first ${options.limit} samples` : ""
      }.`
      : "No real model configured: set OPENAI_BASE_URL, MEDEVAL_MODELS (comma-separated) and MEDEVAL_JUDGE_MODEL.",
    ...(compared
      ? [
        `The ${realDirs.length} real models compared on the same items (paired tests with Holm and BH adjusted ` +
        "p-values, rank intervals, letters): comparison.md; their letters also stand in the paper tables.",
      ]
      : []),
  ];
  await Deno.writeTextFile(
    `${options.root}/${dirRel}/report.md`,
    [
      `# ${task.title} — pipeline runs`,
      "",
      ...notes.flatMap((n) => [n, ""]),
      ...written.map((w) => toMarkdown(w.table)),
    ]
      .join("\n"),
  );
  return {
    section: {
      benchmark: name,
      title: `${task.title} — pipeline runs`,
      notes,
      tables: written,
      figures: { dir: figuresRel, names: Object.keys(figures) },
      links: [
        ...(compared
          ? ["comparison.md", "comparison.csv", "comparison_models.csv", "comparison.json"].map((file) => ({
            label: file,
            href: `runs/${name}/${file}`,
          }))
          : []),
        ...(power ? [{ label: "power.json", href: `runs/${name}/power.json` }] : []),
      ],
    },
    summaries,
    figures: { dir: `${options.root}/${figuresRel}`, figures },
    facts,
    ...(compared ? { letters: compared.letters } : {}),
  };
}

/** Re-creates every table, figure, claim check and report; returns the paths of the main reports. */
/**
 * The toolkit's own CAT on CliMedBench's shipped sample (its choice items, simulated examinees, offline), as a
 * row beside the paper's Table 3; the details go to `reports/irt/sample_cat.json`.
 */
async function sampleCatEntry(root: string): Promise<ComparisonEntry> {
  const task = await getTask("climedbench");
  const samples = await task.load(projectPath(task.defaultDataPath));
  const ids = samples.filter((s) => String(s.fields.question_type).endsWith("_choice")).map((s) => s.id);
  const result = sampleCat(ids);
  await Deno.mkdir(`${root}/reports/irt`, { recursive: true });
  await Deno.writeTextFile(`${root}/reports/irt/sample_cat.json`, `${JSON.stringify(result, null, 2)}\n`);
  const scaled = {
    ...result.accuracy,
    value: result.accuracy.value! * 100,
    ci95: result.accuracy.ci95!.map((x) => x * 100) as [number, number],
  };
  return {
    label: `medeval CAT, shipped sample: ${ids.length} choice items, simulated examinees (OFFLINE), ` +
      `held-out responses predicted from θ after ${result.meanItems.toFixed(1)} items on average`,
    values: { accuracy: `${formatEstimate(scaled, false, 2)} (n=${result.accuracy.n})` },
  };
}

export async function reproduce(options: ReproduceOptions): Promise<string[]> {
  const root = options.root.replace(/\/$/, "");
  const opts = { ...options, root };
  const papers = await loadPapers(options.papersDir);

  // Every run of every benchmark is checked before the first one starts.
  const plans: BenchmarkPlan[] = [];
  for (const name of Object.keys(BENCHMARKS).sort()) {
    plans.push(await planBenchmark(name, await getTask(name), opts));
  }
  // The task files of tasks/ run like the built-in benchmarks, after them.
  for (const path of await projectTaskFiles()) {
    const task = await getTask(path);
    plans.push(await planBenchmark(task.name, task, opts, path));
  }
  // The metrics paper tables show each benchmark's runs by: compared too when several real models ran.
  const paperMetrics = (benchmark: string) =>
    papers.flatMap((p) => p.file.tables).flatMap((t) =>
      t.compare?.benchmark === benchmark ? Object.values(t.compare.map).map((m) => m.metric) : []
    );
  const runs: BenchmarkRun[] = [];
  for (const plan of plans) runs.push(await runBenchmark(plan, opts, paperMetrics(plan.name)));
  // One static viewer of every run reproduce made (deno task view), linked from reports/index.html.
  await writeRunsViewer(plans.flatMap((p) => p.runs.map((r) => r.plan.config.out)), `${root}/reports/view`);
  const summaries = runs.flatMap((r) => r.summaries);
  const facts: DataFacts = Object.fromEntries(runs.map((r) => [r.section.benchmark, r.facts]));

  const cat = await sampleCatEntry(root);
  const letters = new Map(
    runs.flatMap((r) => (r.letters ? [[r.section.benchmark, r.letters] as const] : [])),
  );
  const outputs: PaperOutputs[] = [];
  for (const paper of papers) {
    // Our real models beside the paper's, with their letters where several were compared on the same items.
    const extra: Record<string, ComparisonEntry[]> = {};
    for (const spec of paper.file.tables) {
      if (spec.compare) {
        extra[spec.id] = comparisonEntries(spec.compare, summaries, letters.get(spec.compare.benchmark));
      }
    }
    if (paper.file.paper === "climedbench") extra.table3 = [...(extra.table3 ?? []), cat];
    outputs.push(await writePaperTables(paper, root, [], extra));
  }

  const claims = papers.flatMap((paper) => checkClaims(paper, facts));
  const titles = Object.fromEntries(papers.map((p) => [p.file.paper, p.file.title]));
  const [claimsMd, claimsJson] = await writeClaims(`${root}/reports`, claims, titles);

  const sets = [...outputs.map((o) => o.figures), ...runs.map((r) => r.figures)];
  for (const set of sets) await Deno.remove(set.dir, { recursive: true }).catch(() => {});
  const formats = (options.render ?? true) ? options.formats ?? ["svg", "png", "pdf"] : [];
  await exportFigureSets(sets, formats.length > 0, formats);

  const version = await codeVersion();
  const index = `${root}/reports/index.html`;
  await Deno.writeTextFile(
    index,
    indexPage({
      papers: outputs,
      claims,
      runs: runs.map((r) => r.section),
      viewer: "view/index.html",
      producedBy: `Produced by \`deno task reproduce\` (medeval ${version.commit}${
        version.dirty ? ", uncommitted changes" : ""
      }).`,
    }, formats),
  );
  return [index, claimsMd, claimsJson];
}
