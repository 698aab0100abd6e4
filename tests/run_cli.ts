/**
 * Test helper: runs the `medeval` command line in a child process, as a user would.
 * @module
 */

/** The project root (with a trailing slash). */
export const ROOT = new URL("..", import.meta.url).pathname;

/** Returns the command `deno run -A lib/cli/main.ts ...args`, run from the project root with no stdin. */
export function cli(args: string[], env: Record<string, string> = {}): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}lib/cli/main.ts`, ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1", ...env },
  });
}

/** The arguments of `eval climedbench` on the shipped sample with `offline:reference`, quiet, writing to `out`. */
export function offlineClimedBenchArgs(out: string): string[] {
  return [
    "eval",
    "climedbench",
    "--data",
    `${ROOT}data/climedbench/sample.jsonl`,
    "--model",
    "offline:reference",
    "--no-render",
    "--quiet",
    "--out",
    out,
  ];
}

/**
 * Returns `deno task eval llmeval-med` on the shipped sample against one fake server (model and judge, 3 judge
 * runs), writing to `out`, with `extra` flags; `resume` adds `--resume`.
 */
export function llmevalCommand(
  url: string,
  out: string,
  resume: boolean,
  extra: string[] = [],
): Deno.Command {
  return cli([
    "eval",
    "llmeval-med",
    "--model",
    "fake-model",
    "--base-url",
    url,
    "--judge",
    "fake-judge",
    "--judge-base-url",
    url,
    "--judge-runs",
    "3",
    "--data",
    `${ROOT}data/llmeval_med/sample.json`,
    "--out",
    out,
    "--no-render",
    ...extra,
    ...(resume ? ["--resume"] : []),
  ]);
}

/** What a finished command printed and returned. */
export interface CliResult {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
  /** Lines of standard error that start with `error:`. */
  errors: string[];
}

/** Runs the command line with `args` and collects its output. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const out = await cli(args, env).output();
  const stderr = new TextDecoder().decode(out.stderr);
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr,
    errors: stderr.split("\n").filter((l) => l.startsWith("error:")),
  };
}

/** Returns the rows of a run's `samples.jsonl` (one parsed object per sample and condition). */
// deno-lint-ignore no-explicit-any
export async function sampleRows(out: string): Promise<Record<string, any>[]> {
  return (await Deno.readTextFile(`${out}/samples.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
}
