import { assert, assertEquals } from "@std/assert";
import {
  CLI_DOCS_PATH,
  cliDocs,
  headingAnchor,
  irtSubcommands,
  markdownTable,
  projectTaskFiles,
} from "../lib/cli/cli_docs.ts";
import { EVAL_OPTIONS } from "../lib/pipeline/eval_options.ts";
import { BENCHMARKS } from "../lib/benchmarks/registry.ts";
import { ROOT } from "./run_cli.ts";
import { walkFiles } from "./walk.ts";

/** A relative link of a Markdown file: its target path (resolved) and anchor, and where it was written. */
interface Link {
  /** `file:line`. */
  where: string;
  /** The link as written. */
  target: string;
  /** The absolute path it points to. */
  path: string;
  /** The `#anchor` part, without `#` (empty when none). */
  anchor: string;
}

/** Returns the relative links (`[text](target)`) of Markdown `text` outside code, resolved against `file`. */
function relativeLinks(file: string, text: string): Link[] {
  const links: Link[] = [];
  let fenced = false;
  for (const [i, line] of text.split("\n").entries()) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, "");
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [pathPart, anchor = ""] = target.split("#");
      const path = pathPart === "" ? file : new URL(pathPart, `file://${file}`).pathname;
      links.push({ where: `${file.slice(ROOT.length)}:${i + 1}`, target, path: decodeURI(path), anchor });
    }
  }
  return links;
}

/** Returns the anchors of a Markdown file's headings, as GitHub makes them (repeats get `-1`, `-2`, ...). */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = headingAnchor(heading[1].replace(/`/g, "").trim());
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** Returns the links of `links` whose file is missing or whose anchor names no heading of that file. */
async function brokenLinks(links: readonly Link[]): Promise<string[]> {
  const broken: string[] = [];
  for (const link of links) {
    const stat = await Deno.stat(link.path).catch(() => null);
    if (!stat) {
      broken.push(`${link.where}: ${link.target} (no such file)`);
      continue;
    }
    if (link.anchor && stat.isFile && link.path.endsWith(".md")) {
      const anchors = anchorsOf(await Deno.readTextFile(link.path));
      if (!anchors.has(link.anchor)) {
        broken.push(`${link.where}: ${link.target} (no heading #${link.anchor})`);
      }
    }
  }
  return broken;
}

/** README.md, every Markdown file under docs/, and each benchmark folder's README.md. */
async function documentationFiles(): Promise<string[]> {
  const files = [`${ROOT}README.md`];
  for await (const path of walkFiles(`${ROOT}docs`)) if (path.endsWith(".md")) files.push(path);
  for await (const path of walkFiles(`${ROOT}lib/benchmarks`)) {
    if (path.endsWith("/README.md")) files.push(path);
  }
  return files.sort();
}

Deno.test("docs/cli.md is what `deno task docs` writes from the option table and the command specs", async () => {
  const committed = await Deno.readTextFile(`${ROOT}${CLI_DOCS_PATH}`);
  assert(
    committed === await cliDocs(),
    `${CLI_DOCS_PATH} is not current: run \`deno task docs\` and commit the page`,
  );
});

Deno.test("the generated CLI page has every eval option, every benchmark and every irt subcommand", async () => {
  const page = await cliDocs();
  for (const option of EVAL_OPTIONS) assert(page.includes(`  --${option.flag}`), `--${option.flag} missing`);
  for (const name of [...Object.keys(BENCHMARKS), ...projectTaskFiles()]) {
    assert(page.includes(`\n## deno task eval ${name}\n`), name);
  }
  assertEquals(irtSubcommands(), ["fit", "cat", "subset", "mps"]);
  for (const sub of irtSubcommands()) assert(page.includes(`usage: deno task irt ${sub}`), sub);
  for (
    const command of [
      "reproduce",
      "download",
      "merge",
      "import-ratings",
      "collect",
      "tag",
      "doctor",
      "notebooks",
    ]
  ) {
    assert(page.includes(`usage: deno task ${command}`), command);
  }
});

Deno.test("every relative link in README.md and docs/ points to a file (and heading) that exists", async () => {
  const links: Link[] = [];
  for (const file of await documentationFiles()) {
    links.push(...relativeLinks(file, await Deno.readTextFile(file)));
  }
  assert(links.length > 20, `only ${links.length} links found: is the link reader broken?`);
  assertEquals(await brokenLinks(links), []);
});

Deno.test("the link check finds a missing file and a missing heading, and skips code and web links", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-docs-" });
  await Deno.writeTextFile(`${dir}/there.md`, "# A `code` heading\n\n## Twice\n\n## Twice\n");
  const text = [
    "[ok](there.md) [ok](there.md#a-code-heading) [ok](there.md#twice-1) [web](https://example.org/x.md)",
    "[gone](missing.md) [bad anchor](there.md#nowhere) `[in code](nope.md)`",
    "```",
    "[in a fence](nope.md)",
    "```",
  ].join("\n");
  const links = relativeLinks(`${dir}/page.md`, text);
  assertEquals(links.map((l) => l.target), [
    "there.md",
    "there.md#a-code-heading",
    "there.md#twice-1",
    "missing.md",
    "there.md#nowhere",
  ]);
  const broken = (await brokenLinks(links)).map((b) => b.replace(/^.*?: /, ""));
  assertEquals(broken, ["missing.md (no such file)", "there.md#nowhere (no heading #nowhere)"]);
  await Deno.remove(dir, { recursive: true });
});

/** Returns `LAYERS` of tests/architecture_test.ts (bottom first), read from its source text. */
function layersOfTest(source: string): string[][] {
  const table = /const LAYERS[^=]*=\s*\[([\s\S]*?)\n\];/.exec(source);
  if (!table) throw new Error("tests/architecture_test.ts: no LAYERS table found");
  return [...table[1].matchAll(/\[([^\]]*)\]/g)].map((m) =>
    [...m[1].matchAll(/"([^"]+)"/g)].map((f) => f[1])
  );
}

/** Returns the layer table of docs/architecture.md (bottom first): rows `| N | \`a\`, \`b\` | ... |`. */
function layersOfDoc(markdown: string): string[][] {
  const rows = [...markdown.matchAll(/^\| (\d+) +\| ([^|]+)\|/gm)]
    .map((m) => ({ layer: Number(m[1]), folders: [...m[2].matchAll(/`([^`]+)`/g)].map((f) => f[1]) }));
  return rows.sort((a, b) => a.layer - b.layer).map((r) => r.folders);
}

Deno.test("docs/architecture.md lists the layers of tests/architecture_test.ts and every folder of lib/", async () => {
  const layers = layersOfTest(await Deno.readTextFile(`${ROOT}tests/architecture_test.ts`));
  assert(layers.length >= 5 && layers[0].includes("core"), `LAYERS read as ${JSON.stringify(layers)}`);
  const doc = await Deno.readTextFile(`${ROOT}docs/architecture.md`);
  assertEquals(layersOfDoc(doc), layers);
  const folders = [...Deno.readDirSync(`${ROOT}lib`)].filter((e) => e.isDirectory).map((e) => e.name);
  const missing = folders.filter((f) => !doc.includes(`lib/${f}/`));
  assertEquals(missing, [], "folders of lib/ that docs/architecture.md does not describe");
});

Deno.test("the layer readers read a LAYERS table and a layer table alike", () => {
  const source = 'const LAYERS: string[][] = [\n  ["core", "vendor"],\n  ["text"],\n];\nmore';
  assertEquals(layersOfTest(source), [["core", "vendor"], ["text"]]);
  const doc = "| layer | folders |\n| --- | --- |\n| 2     | `text` |\n| 1     | `core`, `vendor` |\n";
  assertEquals(layersOfDoc(doc), [["core", "vendor"], ["text"]]);
  assertEquals(layersOfDoc(doc.replace("`text`", "`text`, `stats`")), [["core", "vendor"], [
    "text",
    "stats",
  ]]);
});

/** Returns each `deno task eval ...` command of the fenced code in `markdown`, continuation lines joined. */
function evalCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const [, body] of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm)) {
    const joined = body.replace(/\\\n/g, " ");
    for (const line of joined.split("\n")) {
      const at = line.search(/task eval /);
      if (at >= 0) commands.push(line.slice(at).replace(/#.*$/, ""));
    }
  }
  return commands;
}

Deno.test("every flag of a `deno task eval` example in the docs is an eval option", async () => {
  const known = new Set([...EVAL_OPTIONS.map((o) => o.flag), "help"]);
  const unknown: string[] = [];
  let seen = 0;
  for (const file of await documentationFiles()) {
    for (const command of evalCommands(await Deno.readTextFile(file))) {
      seen++;
      for (const [, flag] of command.matchAll(/(?:^|\s)--([a-z][a-z0-9-]*)/g)) {
        if (!known.has(flag)) unknown.push(`${file.slice(ROOT.length)}: --${flag} in "${command.trim()}"`);
      }
    }
  }
  assert(seen >= 5, `only ${seen} eval examples found: is the reader broken?`);
  assertEquals(unknown, []);
});

Deno.test("evalCommands joins continued lines and drops comments", () => {
  const text = "```sh\nnpx -y deno@2 task eval x \\\n  --model m --jduge j   # --not-a-flag\n```\n";
  assertEquals(evalCommands(text).map((c) => c.trim()), ["task eval x    --model m --jduge j"]);
});

Deno.test("each benchmark folder has a README.md naming every module in it", async () => {
  const unnamed: string[] = [];
  for (const folder of Deno.readDirSync(`${ROOT}lib/benchmarks`)) {
    if (!folder.isDirectory) continue;
    const dir = `${ROOT}lib/benchmarks/${folder.name}`;
    const readme = await Deno.readTextFile(`${dir}/README.md`).catch(() => "");
    if (!readme) unnamed.push(`lib/benchmarks/${folder.name}/README.md is missing`);
    for (const file of Deno.readDirSync(dir)) {
      if (file.name.endsWith(".ts") && readme && !readme.includes(`\`${file.name}\``)) {
        unnamed.push(`lib/benchmarks/${folder.name}/${file.name}`);
      }
    }
  }
  assertEquals(unnamed, []);
});

Deno.test("markdownTable pads every column to its widest cell", () => {
  assertEquals(markdownTable(["a", "long header"], [["wide cell", "x"]]), [
    "| a         | long header |",
    "| --------- | ----------- |",
    "| wide cell | x           |",
  ]);
});
