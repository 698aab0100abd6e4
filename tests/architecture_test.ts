import { assert, assertEquals } from "@std/assert";
import { ROOT } from "./run_cli.ts";
import { walkFiles } from "./walk.ts";

/** The layers of `lib/`, bottom first: a module may import its own layer and the layers below it. */
const LAYERS: string[][] = [
  ["core", "vendor"],
  ["text", "stats"],
  ["metrics", "store", "providers", "report"],
  ["judges", "solvers", "ablations", "analysis", "view"],
  ["robustness"],
  ["benchmarks", "task_file", "papers", "irt", "meta", "compare"],
  ["pipeline"],
  ["cli"],
];

function layerOf(folder: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  if (index < 0) throw new Error(`lib/${folder} is in no layer: add it to LAYERS`);
  return index;
}

/** Returns the `lib/` modules each `lib/` module imports (relative imports resolved to project paths). */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for await (const path of walkFiles(`${ROOT}lib`)) {
    if (!path.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(path);
    const specs = [...text.matchAll(/^(?:import|export)[^"']*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]);
    const local = specs.filter((s) => s.startsWith(".")).map((s) => new URL(s, `file://${path}`).pathname);
    graph.set(path.slice(ROOT.length), local.map((p) => p.slice(ROOT.length)));
    const external = specs.filter((s) => !s.startsWith("."));
    assert(!external.includes("danfojs-node"), `${path}: danfojs-node stays off lib/ (notebooks only)`);
  }
  return graph;
}

Deno.test("imports point down the layers: core imports nothing above it, nothing imports cli", async () => {
  const graph = await importGraph();
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    const fromFolder = from.split("/")[1];
    for (const to of targets) {
      const toFolder = to.split("/")[1];
      if (!to.startsWith("lib/")) continue;
      if (layerOf(toFolder) > layerOf(fromFolder)) wrong.push(`${from} -> ${to}`);
      if (fromFolder === "core" && toFolder !== "core") {
        wrong.push(`${from} -> ${to} (core imports only core)`);
      }
    }
  }
  assertEquals(wrong, []);
});

Deno.test("lib/ has no import cycles", async () => {
  const graph = await importGraph();
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "open") {
      cycles.push([...path.slice(path.indexOf(node)), node].join(" -> "));
      return;
    }
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, "done");
  };
  for (const node of graph.keys()) visit(node, []);
  assertEquals(cycles, []);
});

/**
 * Returns the folder a module belongs to at `depth`: `lib/<folder>` at depth 1; at depth 2 the subfolder
 * `lib/<folder>/<sub>`, or `undefined` for a module directly in `lib/<folder>/` (which belongs to no subfolder).
 */
function folderAt(module: string, depth: 1 | 2): string | undefined {
  const parts = module.split("/");
  if (parts.length < depth + 2) return undefined;
  return parts.slice(0, depth + 1).join("/");
}

/** Returns the folder pairs `A <-> B` (at `depth`, siblings at depth 2) where A imports B and B imports A. */
function folderCycles(graph: ReadonlyMap<string, readonly string[]>, depth: 1 | 2): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = folderAt(from, depth);
    for (const to of targets) {
      const b = folderAt(to, depth);
      if (!a || !b || a === b || !to.startsWith("lib/")) continue;
      if (depth === 2 && folderAt(from, 1) !== folderAt(to, 1)) continue;
      edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
  }
  const pairs: string[] = [];
  for (const [a, targets] of edges) {
    for (const b of targets) if (a < b && edges.get(b)?.has(a)) pairs.push(`${a} <-> ${b}`);
  }
  return pairs.sort();
}

Deno.test("no two folders of lib/ (nor two subfolders of one) import each other", async () => {
  const graph = await importGraph();
  assertEquals([...folderCycles(graph, 1), ...folderCycles(graph, 2)], []);
});

Deno.test("folderCycles finds a cycle between folders and between sibling subfolders, not within one", () => {
  const graph = new Map([
    ["lib/judges/a.ts", ["lib/ablations/b.ts", "lib/judges/c.ts"]],
    ["lib/ablations/b.ts", ["lib/judges/c.ts"]],
    ["lib/judges/c.ts", ["lib/judges/a.ts"]],
    ["lib/providers/flow/x.ts", ["lib/providers/transport/y.ts", "lib/providers/types.ts"]],
    ["lib/providers/transport/y.ts", ["lib/providers/flow/z.ts"]],
    ["lib/providers/types.ts", []],
    ["lib/providers/caller.ts", ["lib/providers/flow/x.ts"]],
  ]);
  assertEquals(folderCycles(graph, 1), ["lib/ablations <-> lib/judges"]);
  assertEquals(folderCycles(graph, 2), ["lib/providers/flow <-> lib/providers/transport"]);
});

Deno.test("an evaluation loads no TensorFlow and prints no deprecation warning", async () => {
  const out = await Deno.makeTempDir({ prefix: "medeval-arch-" });
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${ROOT}lib/cli/main.ts`,
      "eval",
      "climedbench",
      "--model",
      "offline:reference",
      "--out",
      `${out}/run`,
      "--no-render",
      "--quiet",
    ],
    cwd: ROOT,
    stdin: "null",
    env: { NO_COLOR: "1" },
  });
  const result = await command.output();
  const stderr = new TextDecoder().decode(result.stderr);
  assertEquals(result.code, 0, stderr);
  assert(!/tensorflow|deprecat/i.test(stderr), stderr);
  await Deno.remove(out, { recursive: true });
});

Deno.test("every lib/ module a notebook imports exists (notebooks run only in the slower notebook step)", async () => {
  const missing: string[] = [];
  for await (const path of walkFiles(`${ROOT}notebooks`)) {
    if (!path.endsWith(".ipynb")) continue;
    const text = await Deno.readTextFile(path);
    for (const [, module] of text.matchAll(/\.\.\/(lib\/[\w/.-]+\.ts)/g)) {
      if (!(await Deno.stat(`${ROOT}${module}`).catch(() => null))) missing.push(`${path}: ${module}`);
    }
  }
  assertEquals(missing, []);
});
