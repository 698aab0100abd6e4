/**
 * Fixed costs (issue 28): what `eval` loads before its first request. The heavy packages — the pinyin and
 * simplified→traditional tables, puppeteer, the Parquet reader, js-tiktoken's ranks, the YAML parser, the
 * npm:openai client (batch mode and `doctor` only), wink-nlp (`offline:retrieval` only) — are imported
 * dynamically, where a condition, a figure, an input file, a length bucket, a task file, a batch or a stand-in
 * needs them; so are the other commands and each benchmark's own modules. The static module graph of the
 * command line holds none of them. The graph is read from `deno info --json`, following only static, runtime
 * imports.
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { ROOT } from "./run_cli.ts";

/** Packages that must load only on demand. */
const LAZY = [
  "opencc-js",
  "pinyin-pro",
  "puppeteer-core",
  "hyparquet",
  "js-tiktoken",
  "yaml",
  "openai",
  "wink-nlp",
];

/**
 * Node built-ins slow to load that the command line does without: `node:crypto` alone took ~17 ms of every
 * start (SHA-256 is written out in lib/core/hash.ts), `node:util` ~15 ms (its `parseArgs` is replaced by
 * `parseFlags` in lib/cli/args.ts).
 */
const SLOW_BUILTINS = ["node:crypto", "node:util"];

/** Modules of the project that load only for their command or benchmark. */
const LAZY_MODULES = [
  /lib\/cli\/(view|irt|doctor|meta|compare|power|merge|tag|runs|reproduce)\.ts$/,
  /lib\/benchmarks\/[a-z_]+\/task\.ts$/,
  /lib\/task_file\/index\.ts$/,
];

interface InfoDependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

/**
 * Returns the specifiers reachable from `root` by static runtime imports (type-only and dynamic ones left out),
 * or, with `readAhead`, by dynamic ones too: Deno reads every module a literal `import("./x.ts")` names when the
 * program starts, imported or not.
 */
async function staticGraph(root: string, readAhead = false): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", root], cwd: ROOT }).output();
  assert(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: InfoDependency[] }[];
    redirects: Record<string, string>;
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (s: string) => info.redirects[s] ?? s;
  const seen = new Set<string>();
  const stack = info.roots.map(resolve);
  while (stack.length) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dep.code && (readAhead || !dep.isDynamic)) stack.push(resolve(dep.code.specifier));
    }
  }
  return seen;
}

/**
 * Returns the npm package a module specifier belongs to: `npm:/zod@4.6.7/...`, or a file under
 * `node_modules/.deno/zod@4.6.7/` (how a local node_modules/ names it), else `undefined`.
 */
function packageOf(specifier: string): string | undefined {
  const npm = specifier.match(/^npm:\/?((?:@[^/]+\/)?[^/@]+)@/);
  if (npm) return npm[1];
  const local = specifier.match(/\/node_modules\/\.deno\/([^/]+)@[^/@]+\//);
  return local ? local[1].replace(/^(@[^+]+)\+/, "$1/") : undefined;
}

Deno.test("the command line's static module graph holds no package that loads on demand", async () => {
  const graph = await staticGraph("lib/cli/main.ts");
  const packages = new Set([...graph].map(packageOf).filter((p) => p !== undefined));
  assert(packages.has("zod"), "the graph must be read (zod is static)");
  assertEquals([...packages].filter((name) => LAZY.includes(name)), []);
  const eagerModules = [...graph].filter((s) => LAZY_MODULES.some((pattern) => pattern.test(s)));
  assertEquals(eagerModules, []);
  assert(graph.has("node:sqlite"), "node built-ins must be read (node:sqlite is static)");
  assertEquals([...graph].filter((s) => SLOW_BUILTINS.includes(s)), []);
});

Deno.test("Deno reads ahead no module of another command or benchmark when the command line starts", async () => {
  // Read ahead, the other commands and benchmarks were ~150 of the ~300 files every start read (~35 ms of an
  // `eval`'s start); they are imported by importLater (lib/core/import_later.ts), which Deno does not follow.
  const graph = await staticGraph("lib/cli/main.ts", true);
  assert(graph.has(`file://${ROOT}lib/pipeline/run_eval.ts`), "the graph must be read (run_eval is static)");
  const ahead = [...graph].filter((s) =>
    LAZY_MODULES.some((pattern) => pattern.test(s)) || /\/lib\/(irt|view|compare|meta|papers)\//.test(s)
  );
  assertEquals(ahead, []);
});

Deno.test("a module imported later keeps its type and exports", async () => {
  const { importLater } = await import("../lib/core/import_later.ts");
  const hash = await importLater<typeof import("../lib/core/hash.ts")>(
    "./hash.ts",
    `file://${ROOT}lib/core/x.ts`,
  );
  assertEquals(hash.sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

Deno.test("node_modules is installed by every task first, not checked package by package on every start", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as {
    nodeModulesDir: string;
    tasks: Record<string, string | { command: string; dependencies?: string[] }>;
  };
  // `auto` verifies each package of deno.lock under a file lock at every start (~100 ms of start-up).
  assertEquals(config.nodeModulesDir, "manual");
  const dependsOnDeps = (name: string, seen = new Set<string>()): boolean => {
    if (name === "deps") return true;
    if (seen.has(name)) return false;
    seen.add(name);
    const task = config.tasks[name];
    return typeof task === "object" && (task.dependencies ?? []).some((d) => dependsOnDeps(d, seen));
  };
  const without = Object.keys(config.tasks).filter((name) => name !== "deps" && !dependsOnDeps(name));
  assertEquals(without, [], "tasks that would run without node_modules/ installed");
  const deps = config.tasks.deps;
  assert(typeof deps === "object" && deps.command.startsWith("deno install"), "deps runs `deno install`");
});

Deno.test("every task that runs the command line starts Deno the same way, tuned for memory", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as {
    tasks: Record<string, string | { command: string }>;
  };
  const commands = Object.entries(config.tasks)
    .map(([name, task]) => [name, typeof task === "string" ? task : task.command] as const)
    .filter(([, command]) => command.includes("lib/cli/main.ts"));
  assert(commands.length >= 13, "the command-line tasks must be read");
  // glibc otherwise raises its mmap threshold after the first large free (up to 32 MB), and the large buffers
  // of a big run (the data file, its text, SQLite's results) stay in the process once freed; V8's young
  // generation otherwise grows to 16 MB a semi-space in each thread. Together ~110 MB more peak RSS at
  // 100,000 items. Its old generation otherwise grows up to 4x past what is live before it marks, and no
  // checkpoint collects while calls are in flight: ~140 MB more at 33,735 items (docs/scale.md). Where the
  // kernel gives huge pages on request (transparent huge pages in `madvise` mode), glibc asks for them: a page
  // fault then maps 2 MB instead of 4 KB (loading 33,735 items: ~21,000 faults instead of ~37,000).
  const without = commands.filter(([, command]) =>
    !command.startsWith(
      "MALLOC_MMAP_THRESHOLD_=131072 GLIBC_TUNABLES=glibc.malloc.hugetlb=1 deno run -A " +
        "--v8-flags=--max-semi-space-size=8,--heap-growing-percent=25 lib/cli/main.ts ",
    )
  );
  assertEquals(without.map(([name]) => name), []);
});
