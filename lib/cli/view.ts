/**
 * `deno task view RUN_DIR... [--out DIR] [--open]`: writes a static viewer of one or more runs — runs page,
 * per-run tables and figures, a filterable and searchable samples table, sample pages with the conversation
 * as sent and every judge's rationale, and paired comparisons — that opens from the file system with no
 * server and no network (lib/view/ writes it; this command adds what only the benchmark knows: its metrics'
 * display, its groups and its per-sample rows).
 * @module
 */
import { exitWith } from "./exit_code.ts";
import { getTask } from "../benchmarks/registry.ts";
import { ConfigError } from "../core/errors.ts";
import { pathExists } from "../core/fs.ts";
import { labelsOf } from "../core/summary.ts";
import { readRunView } from "../pipeline/evaluate.ts";
import { RunStore } from "../store/run_store.ts";
import { type RunBenchmark, type ViewResult, writeViewBundle } from "../view/write_bundle.ts";
import { type CommandSpec, commandUsage, parseCommand } from "./args.ts";

/** The flags and help of `view`. */
export const VIEW_SPEC = {
  command: "deno task view",
  positionals: "RUN_DIR...",
  description:
    "Writes a static viewer of the runs: a runs page (benchmark, model, judges, conditions, n, headline " +
    "metrics with 95% CIs, tokens and cost, truncation and error counts, data and prompt hashes, code " +
    "version), each run's tables and figures, a virtualised samples table with filters (group, score range, " +
    "judge error, judge-human disagreement, extraction failure, truncated) and full-text search (Chinese and " +
    "Persian included), a page per sample (the conversation as sent, each judge's verdict and rationale per " +
    "repeat, human ratings, the calls) and paired comparisons of conditions and runs (differences with CIs, " +
    "McNemar, flipped items side by side). Every table cell links to the samples it counts. The folder opens " +
    "from the file system (index.html) or any static host, with no server and no network; data is split into " +
    "compressed chunks loaded on demand, so runs of 100,000 samples stay fast.",
  flags: {
    out: {
      value: "DIR",
      help:
        "the viewer's folder (new, empty, or an earlier viewer, which is replaced); default RUN_DIR/view " +
        "for one run, required for several",
    },
    open: { help: "open the viewer in the default browser when it is written" },
  },
  notes: [
    "example: deno task view runs/qwen7b runs/gpt4o --out runs/compare-view --open",
  ],
} satisfies CommandSpec;

/**
 * Returns what the benchmark of the run in `dir` adds to the viewer (metric display, groups, per-sample rows),
 * or `undefined` when the benchmark (e.g. a task file that moved) cannot be found.
 */
export async function runBenchmark(dir: string): Promise<RunBenchmark | undefined> {
  const path = `${dir}/run.sqlite`;
  if (!(await pathExists(path))) return undefined;
  const store = new RunStore(path, { readOnly: true });
  let names: (string | undefined)[];
  try {
    const manifest = store.manifest();
    // The name the run was started with (a task file's path), else the benchmark's own name (tasks/<name>).
    names = [
      (manifest?.config as { benchmark?: string } | undefined)?.benchmark,
      (manifest?.identity as { benchmark?: string } | undefined)?.benchmark,
    ];
  } finally {
    store.close();
  }
  let task;
  for (const name of names) {
    task ??= name ? await getTask(name).catch(() => undefined) : undefined;
  }
  if (!task) return undefined;
  return {
    metrics: task.report.metrics,
    groups: task.report.groups,
    primaryScorer: task.scorers[0]?.name,
    rows: (runStore, summary) => task.rows(readRunView(runStore, summary.condition), labelsOf(summary)),
  };
}

/**
 * Writes the viewer of the runs in `dirs` into `out`, each with what its benchmark adds (what `view` and
 * `reproduce` call).
 */
export async function writeRunsViewer(dirs: readonly string[], out: string): Promise<ViewResult> {
  const runs = [];
  for (const dir of dirs) runs.push({ dir, benchmark: await runBenchmark(dir) });
  return await writeViewBundle({ runs, out });
}

/** Opens `path` in the default browser; returns whether that worked. */
async function openInBrowser(path: string): Promise<boolean> {
  const command = Deno.build.os === "darwin"
    ? ["open", path]
    : Deno.build.os === "windows"
    ? ["cmd", "/c", "start", "", path]
    : ["xdg-open", path];
  try {
    const status = await new Deno.Command(command[0], {
      args: command.slice(1),
      stdout: "null",
      stderr: "null",
    })
      .output();
    return status.success;
  } catch {
    return false;
  }
}

/** `view`: parses the flags, writes the viewer, prints where it is; returns the exit code. */
export async function viewCommand(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(VIEW_SPEC, args);
  if (help) {
    console.log(commandUsage(VIEW_SPEC));
    return 0;
  }
  if (positionals.length === 0) {
    throw new ConfigError("view: name the run directories to show (deno task view --help)");
  }
  if (!values.out && positionals.length > 1) {
    throw new ConfigError("--out is required with several runs: the folder to write the viewer into");
  }
  const out = values.out ?? `${positionals[0].replace(/\/+$/, "")}/view`;
  const result = await writeRunsViewer(positionals, out);
  for (const run of result.runs) {
    console.log(`  ${run.dir}: ${run.samples} samples${run.warning ? ` (${run.warning})` : ""}`);
  }
  const index = await Deno.realPath(result.index);
  console.log(
    `viewer: file://${index} (${result.runs.length} run(s), ${result.comparisons} comparison(s), ` +
      `${(result.dataBytes / 1e6).toFixed(1)} MB of data)`,
  );
  if (values.open && !(await openInBrowser(index))) console.log(`could not open a browser: open ${index}`);
  return 0;
}

if (import.meta.main) await exitWith(viewCommand);
