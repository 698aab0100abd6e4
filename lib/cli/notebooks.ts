/**
 * `deno task notebooks [NOTEBOOK.ipynb...]`: executes the notebooks in `notebooks/` (or the ones named) headless
 * with the Deno kernel (`jupyter nbconvert`, executing with `lib/cli/notebook_executor.py`, which keeps the
 * outputs the kernel sends after a cell's idle status). A notebook fails when it is not nbformat 4.5 with a
 * unique id on every cell, when a cell raises, or when an executed cell shows an error or a promise
 * (`Promise { undefined }`: a call that ends the cell was not awaited). Executed copies go to a temporary
 * folder (or `--output-dir DIR`); the committed notebooks are never rewritten, so they stay without outputs.
 * The environment reaches the kernel, so `MEDEVAL_RUN_DIR=runs/x deno task notebooks notebooks/llmeval_med.ipynb`
 * shows a finished run.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";
import { ConfigError } from "../core/errors.ts";
import { projectPath } from "../core/fs.ts";
import { type CommandSpec, commandUsage, parseCommand } from "./args.ts";

/** The command line of `deno task notebooks`. */
export const NOTEBOOKS_SPEC = {
  command: "deno task notebooks",
  positionals: "[NOTEBOOK.ipynb...]",
  description:
    "Executes the notebooks named (default: every notebooks/*.ipynb) headless with the Deno kernel, " +
    "and fails when a notebook is not nbformat 4.5 with a unique id on every cell, when a cell raises, or when " +
    "an executed cell shows an error or a promise (a call that ends the cell was not awaited). The committed " +
    "notebooks are not rewritten.",
  flags: {
    "output-dir": { value: "DIR", help: "where the executed copies go (default: a new temporary folder)" },
  },
  notes: [
    "The environment reaches the notebooks: MEDEVAL_RUN_DIR=DIR opens a finished run in a benchmark notebook,",
    "MEDEVAL_DATA=FILE runs it on a data file (each benchmark notebook's first cell lists its variables), e.g.",
    "  MEDEVAL_RUN_DIR=runs/qwen7b deno task notebooks notebooks/llmeval_med.ipynb",
    "notebooks/power.ipynb takes one run's variance from MEDEVAL_RUN_DIR=DIR, or two runs' from DIR_A,DIR_B.",
  ],
} satisfies CommandSpec;

/** The parts of an `.ipynb` file the checks read. */
export interface NotebookJson {
  /** Major format version. */
  nbformat?: number;
  /** Minor format version. */
  nbformat_minor?: number;
  /** The cells in order. */
  cells?: {
    /** `code`, `markdown` or `raw`. */
    cell_type?: string;
    /** Cell id (nbformat 4.5). */
    id?: unknown;
    /** Source, as one string or a list of lines. */
    source?: string | string[];
    /** Outputs of a code cell. */
    outputs?: NotebookOutput[];
  }[];
}

/** One output of a code cell. */
export interface NotebookOutput {
  /** `stream`, `display_data`, `execute_result` or `error`. */
  output_type?: string;
  /** Stream text. */
  text?: string | string[];
  /** Display data by MIME type. */
  data?: Record<string, unknown>;
  /** Error name and value. */
  ename?: string;
  /** Error message. */
  evalue?: string;
}

/** Cell ids nbformat 4.5 accepts: 1 to 64 letters, digits, `-` and `_`. */
const CELL_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** Returns the text of a source or output field (a string or a list of lines). */
function joined(text: unknown): string {
  return Array.isArray(text) ? text.join("") : typeof text === "string" ? text : "";
}

/** Removes terminal colour codes (the kernel colours inspected values). */
function plain(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

/**
 * Returns what is wrong with a notebook's format: not nbformat ≥ 4.5, or a cell without an id, with an invalid
 * id, or with the id of an earlier cell. Empty when the format is right.
 */
export function formatProblems(notebook: NotebookJson): string[] {
  const problems: string[] = [];
  const version = [notebook.nbformat ?? 0, notebook.nbformat_minor ?? 0];
  if (version[0] < 4 || (version[0] === 4 && version[1] < 5)) {
    problems.push(`nbformat ${version.join(".")}: must be 4.5 or later (cell ids)`);
  }
  const seen = new Set<string>();
  for (const [i, cell] of (notebook.cells ?? []).entries()) {
    const id = cell.id;
    if (id === undefined) problems.push(`cell ${i + 1} has no id`);
    else if (typeof id !== "string" || !CELL_ID.test(id)) {
      problems.push(`cell ${i + 1} has an invalid id ${JSON.stringify(id)}`);
    } else if (seen.has(id)) problems.push(`cell ${i + 1} repeats the id "${id}"`);
    else seen.add(id);
  }
  return problems;
}

/**
 * Returns what is wrong with a notebook's outputs: a cell that shows an error, or a promise (a call that ends
 * the cell was not awaited). Empty when there is nothing to object to (or no outputs at all).
 */
export function outputProblems(notebook: NotebookJson): string[] {
  const problems: string[] = [];
  for (const [i, cell] of (notebook.cells ?? []).entries()) {
    const where = `cell ${i + 1}${typeof cell.id === "string" ? ` (id ${cell.id})` : ""}`;
    for (const output of cell.outputs ?? []) {
      if (output.output_type === "error") {
        problems.push(`${where} shows an error: ${plain(`${output.ename ?? ""}: ${output.evalue ?? ""}`)}`);
        continue;
      }
      const texts = [joined(output.text), ...Object.values(output.data ?? {}).map(joined)].map(plain);
      const promise = texts.join("\n").match(/Promise \{[^\n]*/);
      if (promise) {
        problems.push(`${where} shows "${promise[0].slice(0, 60)}": await the call that ends the cell`);
      }
    }
  }
  return problems;
}

/** Reads a notebook file as JSON. */
async function readNotebook(path: string): Promise<NotebookJson> {
  return JSON.parse(await readTextStrict(path)) as NotebookJson;
}

/** Executes one notebook into `outputDir`; returns its problems (empty when it ran cleanly). */
async function runNotebook(path: string, outputDir: string): Promise<string[]> {
  const format = formatProblems(await readNotebook(path));
  const pythonPath = [projectPath("lib/cli"), Deno.env.get("PYTHONPATH")].filter(Boolean).join(":");
  const out = await new Deno.Command("jupyter", {
    args: [
      "nbconvert",
      "--to",
      "notebook",
      // nbconvert's --execute, except that outputs the Deno kernel sends after a cell's idle status are kept.
      "--NotebookExporter.preprocessors=notebook_executor.RoutingExecutePreprocessor",
      "--ExecutePreprocessor.kernel_name=deno",
      "--ExecutePreprocessor.timeout=900",
      "--output-dir",
      outputDir,
      path,
    ],
    // PYTHONDONTWRITEBYTECODE: no __pycache__ folder inside lib/cli.
    env: { PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: "1" },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  if (!out.success) return [...format, new TextDecoder().decode(out.stderr).slice(-4000)];
  const executed = `${outputDir}/${path.split("/").pop()}`;
  return [...format, ...outputProblems(await readNotebook(executed))];
}

/** Executes each notebook; returns the number that failed. */
export async function runNotebooks(paths: readonly string[], outputDir: string): Promise<number> {
  let failed = 0;
  for (const path of paths) {
    const name = path.split("/").pop();
    const started = performance.now();
    const problems = await runNotebook(path, outputDir);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (problems.length === 0) {
      console.log(`notebook ok: ${name} (${seconds}s)`);
    } else {
      failed++;
      console.error(`notebook FAILED: ${name} (${seconds}s)\n${problems.map((p) => `  ${p}`).join("\n")}`);
    }
  }
  return failed;
}

/** Returns whether `path` is a file. */
function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Returns every `.ipynb` file in `dir`, sorted by name. */
function notebooksIn(dir: string): string[] {
  const names = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".ipynb")).map((e) => e.name).sort();
  if (names.length === 0) throw new Error(`no notebooks in ${dir}`);
  return names.map((name) => `${dir}/${name}`);
}

/** Runs `deno task notebooks` with `args`; returns the exit code (2 for a bad argument). */
async function main(args: string[]): Promise<number> {
  const { values, positionals, help } = parseCommand(NOTEBOOKS_SPEC, args);
  if (help) {
    console.log(commandUsage(NOTEBOOKS_SPEC));
    return 0;
  }
  const notFound = positionals.find((p) => !p.endsWith(".ipynb") || !isFile(p));
  if (notFound !== undefined) {
    throw new ConfigError(
      `${notFound}: not a notebook file (give .ipynb files, or none for notebooks/*.ipynb)`,
    );
  }
  const paths = positionals.length ? positionals : notebooksIn(`${projectPath()}notebooks`);
  const outputDir = values["output-dir"] ?? await Deno.makeTempDir({ prefix: "medeval-notebooks-" });
  const failed = await runNotebooks(paths, outputDir);
  console.log(
    `${
      failed === 0 ? "all notebooks executed" : `${failed} notebook(s) failed`
    }; executed copies in ${outputDir}`,
  );
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`error: ${err.message}`);
    Deno.exit(2);
  }
}
