/**
 * Every subcommand, given bad arguments and bad paths (missing, a directory, empty, the wrong type of file),
 * ends with one line on standard error, exit code 2, no stack trace and nothing written.
 */
import { assert, assertEquals } from "@std/assert";
import { runCli } from "./run_cli.ts";

/** Every path under `dir` (files and folders), sorted: what "nothing written" compares. */
function tree(dir: string): string[] {
  const paths: string[] = [];
  const walk = (path: string) => {
    for (const entry of Deno.readDirSync(path)) {
      paths.push(`${path}/${entry.name}`);
      if (entry.isDirectory) walk(`${path}/${entry.name}`);
    }
  };
  walk(dir);
  return paths.sort();
}

Deno.test("CLI: every subcommand refuses bad arguments and paths with one line, exit 2, nothing written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "medeval-badargs-" });
  try {
    // The bad inputs: a missing path, a directory, an empty file, a file of the wrong type.
    const missing = `${dir}/missing.csv`;
    const folder = `${dir}/folder`;
    const empty = `${dir}/empty.csv`;
    const wrong = `${dir}/wrong.json`;
    const notRun = `${dir}/not-a-run`;
    await Deno.mkdir(folder);
    await Deno.mkdir(notRun);
    await Deno.writeTextFile(empty, "");
    await Deno.writeFile(wrong, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe]));
    await Deno.writeTextFile(`${notRun}/notes.txt`, "not a run");
    const out = `${dir}/out`;
    const llmeval = ["eval", "llmeval-med", "--model", "offline:reference", "--judge", "offline:overlap"];
    const bad = [missing, folder, empty, wrong];

    const cases: string[][] = [
      ...bad.map((data) => [...llmeval, "--data", data, "--out", out]),
      [...llmeval, "--out", empty],
      [...llmeval, "--limit", "x", "--out", out],
      ["eval", "nosuch", "--model", "m", "--out", out],
      ["reproduce", "--limit", "0", "--out", out],
      ["reproduce", "--data-dir", missing, "--out", out],
      ["download", "nosuch"],
      ["merge", "--out", out, missing],
      ["merge", "--out", out, notRun],
      ["merge", "--out", out],
      ...bad.map((file) => ["import-ratings", notRun, file, "--scorer", "human:experts"]),
      ["import-ratings", missing, empty, "--scorer", "human:experts"],
      ["collect", missing, "--out", `${out}.csv`],
      ["collect", notRun, "--out", `${out}.csv`],
      ["collect", notRun, "--out", folder],
      ...bad.map((
        data,
      ) => [
        "tag",
        "permedcqa",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:1/v1",
        "--data",
        data,
        "--out",
        out,
      ]),
      ...bad.map((file) => ["irt", "fit", "--responses", file, "--model", "2pl", "--out", out]),
      ["irt", "fit", "--runs", missing, "--model", "2pl", "--out", out],
      ["irt", "fit", "--responses", empty, "--model", "4pl", "--out", out],
      ...bad.map((
        file,
      ) => ["irt", "cat", "--items", file, "--responses", empty, "--max-items", "5", "--out", out]),
      ["irt", "cat", "--items", empty, "--responses", empty, "--out", out],
      ...bad.map((file) => ["irt", "subset", "--items", file, "--responses", empty, "--out", out]),
      ["irt", "mps", "--out", out],
      ["irt", "mps", "--models", "a,b", "--data", missing, "--out", out],
      ["irt", "nosuch"],
    ];
    const before = tree(dir);
    const problems: string[] = [];
    const show = (args: string[]) => args.map((a) => a.replace(dir, "$TMP")).join(" ");
    // Two commands at a time (each is mostly module loading); the tree is compared after each pair.
    for (let i = 0; i < cases.length; i += 2) {
      const batch = cases.slice(i, i + 2);
      const results = await Promise.all(batch.map((args) => runCli(args, { OPENAI_BASE_URL: "" })));
      for (const [j, result] of results.entries()) {
        const name = show(batch[j]);
        const lines = result.stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("warning:"));
        if (result.code !== 2) problems.push(`${name}: exit ${result.code}`);
        if (lines.length !== 1 || !lines[0].startsWith("error: ")) {
          problems.push(`${name}: ${JSON.stringify(result.stderr.slice(0, 300))}`);
        }
        if (/\n\s+at /.test(result.stderr)) problems.push(`${name}: stack trace`);
      }
      const written = tree(dir).filter((p) => !before.includes(p));
      if (written.length) {
        problems.push(`${batch.map(show).join(" | ")}: wrote ${written.length} paths, e.g. ${written[0]}`);
        for (const path of written.reverse()) await Deno.remove(path, { recursive: true }).catch(() => {});
      }
    }
    assertEquals(problems, []);
    assert(cases.length >= 40, `${cases.length} cases`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
