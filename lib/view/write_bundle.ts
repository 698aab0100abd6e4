/**
 * Writes the viewer bundle of one or more runs: a static folder (`index.html`, `app.js`, `style.css`,
 * `data/…`) that opens from the file system or any static host with no server and no network. Each run store
 * is streamed into compressed chunks the viewer loads on demand (lib/view/run_chunks.ts); the runs' summaries,
 * identities, figures and the paired comparisons go into `data/meta.js`, the one file read first.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";
import { ConfigError, InputError } from "../core/errors.ts";
import { pathExists } from "../core/fs.ts";
import type { GroupDisplay, MetricDisplay } from "../core/report_spec.ts";
import type { SampleRow, Summary } from "../core/summary.ts";
import { RunStore } from "../store/run_store.ts";
import { VIEWER_TITLE, writeApp } from "./app_build.ts";
import { BUNDLE_FORMAT, type BundleMeta, type RunMeta } from "./bundle_format.ts";
import { ChunkWriter } from "./chunk_writer.ts";
import { type ComparableRows, compareSides, comparisonPairs } from "./comparisons.ts";
import { readRunFigures } from "./run_figures.ts";
import { writeRunChunks } from "./run_chunks.ts";
import {
  groupLabels,
  groupOrder,
  metricDisplays,
  readSummaries,
  runIdentity,
  usageTotals,
} from "./run_meta.ts";

/** Most per-sample metrics carried in the row index (table columns, filters, comparisons). */
export const MAX_ROW_METRICS = 4;

/** Samples per chunk: a sample page loads one sample chunk and one results chunk. */
export const CHUNK_SIZE = 250;

/** What the caller knows about a run's benchmark (lib/view itself knows no benchmark). */
export interface RunBenchmark {
  /** How its metrics are shown, primary first. */
  metrics?: readonly MetricDisplay[];
  /** Order and names of its groups. */
  groups?: GroupDisplay;
  /** The scorer whose values make a row's score (default: the first non-human scorer stored). */
  primaryScorer?: string;
  /** Its per-sample rows of one condition (metric values and group fields), from the store. */
  rows?(store: RunStore, summary: Summary): readonly SampleRow[];
}

/** One run to show. */
export interface ViewRun {
  /** The run directory (holding `run.sqlite`). */
  dir: string;
  /** What is known about its benchmark. */
  benchmark?: RunBenchmark;
}

/** What {@linkcode writeViewBundle} is given. */
export interface ViewOptions {
  /** The runs, in the order the runs page lists them. */
  runs: readonly ViewRun[];
  /** The bundle's folder: new, empty, or an earlier bundle (replaced). */
  out: string;
  /** Samples per chunk (default {@linkcode CHUNK_SIZE}). */
  chunkSize?: number;
}

/** What was written. */
export interface ViewResult {
  /** The bundle's `index.html`. */
  index: string;
  /** Bytes of the data files written. */
  dataBytes: number;
  /** Data files written. */
  files: number;
  /** Per run: its directory, samples, and why its per-sample metrics are missing, if they are. */
  runs: { dir: string; samples: number; warning?: string }[];
  /** Paired comparisons written. */
  comparisons: number;
}

/** Refuses an `out` folder that holds files but no earlier viewer; clears an earlier viewer's data. */
async function prepareOut(out: string): Promise<void> {
  if (!(await pathExists(out))) return;
  if (!(await Deno.stat(out)).isDirectory) throw new ConfigError(`--out ${out} is a file, not a folder`);
  const entries: string[] = [];
  for await (const entry of Deno.readDir(out)) entries.push(entry.name);
  if (entries.length === 0) return;
  const index = entries.includes("index.html") ? await readTextStrict(`${out}/index.html`) : "";
  if (!index.includes(`<title>${VIEWER_TITLE}</title>`)) {
    throw new ConfigError(
      `--out ${out} holds other files (no earlier viewer there): choose a new or empty folder`,
    );
  }
  if (entries.includes("data")) await Deno.remove(`${out}/data`, { recursive: true });
}

/** Returns the model label of a manifest (the name for offline stand-ins, as `collect` names them). */
function modelLabel(manifest: Record<string, unknown>): string {
  const model = manifest.model as { name?: string; label?: string; offline?: boolean } | undefined;
  return (model?.offline ? model.name : model?.label ?? model?.name) ?? "unknown model";
}

/** Reads the per-sample rows of every condition; a benchmark that cannot give them leaves a warning. */
function readRows(
  store: RunStore,
  summaries: readonly Summary[],
  benchmark: RunBenchmark | undefined,
): { byCondition: Map<string, readonly SampleRow[]>; warning?: string } {
  const byCondition = new Map<string, readonly SampleRow[]>();
  if (!benchmark?.rows) {
    return { byCondition, warning: "the benchmark is not known here: no per-sample metrics" };
  }
  try {
    for (const summary of summaries) byCondition.set(summary.condition, benchmark.rows(store, summary));
    return { byCondition };
  } catch (err) {
    return { byCondition: new Map(), warning: `per-sample metrics not read: ${(err as Error).message}` };
  }
}

/** Writes one run's chunks; returns its meta and its sides for comparisons. */
async function writeRun(
  run: ViewRun,
  key: string,
  writer: ChunkWriter,
  chunkSize: number,
): Promise<{ meta: RunMeta; sides: ComparableRows[]; warning?: string }> {
  const path = `${run.dir}/run.sqlite`;
  const store = new RunStore(path, { readOnly: true });
  try {
    const manifest = store.manifest();
    const identity = manifest?.identity as { benchmark?: string } | undefined;
    if (!manifest || !identity?.benchmark) {
      throw new InputError({ file: path, field: "manifest" }, "not a run store");
    }
    const summaries = await readSummaries(run.dir);
    const conditions = [...new Set([...summaries.map((s) => s.condition), ...store.conditions()])];
    const metrics = metricDisplays(summaries, run.benchmark?.metrics);
    const order = groupOrder(summaries, run.benchmark?.groups);
    const { byCondition, warning } = readRows(store, summaries, run.benchmark);
    const present = new Set(
      [...byCondition.values()].flatMap((rows) => rows.flatMap((r) => Object.keys(r.values))),
    );
    // The shown metrics that have per-sample values (a rubric's distributions would crowd the table).
    const rowMetrics = metrics.map((m) => m.name).filter((m) => present.has(m)).slice(0, MAX_ROW_METRICS);
    const chunks = await writeRunChunks(store, writer, {
      key,
      size: chunkSize,
      conditions,
      fields: Object.keys(summaries[0]?.groups ?? {}),
      primaryScorer: run.benchmark?.primaryScorer ?? null,
      rows: { metrics: rowMetrics, byCondition },
    });
    const meta: RunMeta = {
      key,
      dir: run.dir,
      benchmark: identity.benchmark,
      model: modelLabel(manifest),
      judges: summaries[0]?.judge ? summaries[0].judge.split(" + ") : [],
      conditions,
      offline: summaries.some((s) => s.offline),
      samples: chunks.samples,
      summaries,
      metrics,
      groupOrder: order,
      groupLabels: groupLabels(order, run.benchmark?.groups),
      identity: runIdentity(manifest),
      usage: usageTotals(summaries),
      figures: await readRunFigures(run.dir),
      fields: chunks.fields,
      verdictFields: chunks.verdictFields,
      rowMetrics: chunks.rowMetrics,
      primaryScorer: chunks.primaryScorer,
      chunks: chunks.chunks,
    };
    const primary = rowMetrics[0];
    const sides: ComparableRows[] = primary === undefined
      ? []
      : [...byCondition].map(([condition, rows]) => ({
        side: { run: key, condition },
        benchmark: identity.benchmark!,
        baseline: condition === conditions[0],
        metric: primary,
        percent: metrics.find((m) => m.name === primary)?.percent ?? false,
        groupOrder: order,
        rows,
      }));
    return { meta, sides, warning };
  } finally {
    store.close();
  }
}

/** Writes the bundle of `options.runs` into `options.out`. */
export async function writeViewBundle(options: ViewOptions): Promise<ViewResult> {
  if (options.runs.length === 0) throw new ConfigError("view: name at least one run directory");
  for (const run of options.runs) {
    if (!(await pathExists(run.dir))) throw new InputError({ file: run.dir }, "no such directory");
    if (!(await pathExists(`${run.dir}/run.sqlite`))) {
      throw new InputError({ file: run.dir }, "no run store (run.sqlite) in this directory");
    }
  }
  await prepareOut(options.out);
  const writer = new ChunkWriter(options.out);
  await writeApp(options.out, writer);
  const runs: RunMeta[] = [];
  const sides: ComparableRows[] = [];
  const written: ViewResult["runs"] = [];
  for (const [i, run] of options.runs.entries()) {
    const one = await writeRun(run, `r${i}`, writer, options.chunkSize ?? CHUNK_SIZE);
    runs.push(one.meta);
    sides.push(...one.sides);
    written.push({
      dir: run.dir,
      samples: one.meta.samples,
      ...(one.warning ? { warning: one.warning } : {}),
    });
  }
  const comparisons = comparisonPairs(sides).map(([a, b]) => compareSides(a, b));
  const meta: BundleMeta = { format: BUNDLE_FORMAT, written: new Date().toISOString(), runs, comparisons };
  await writer.plain("meta", meta);
  return {
    index: `${options.out}/index.html`,
    dataBytes: writer.bytes,
    files: writer.files,
    runs: written,
    comparisons: comparisons.length,
  };
}
