import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import { reproduce } from "../lib/cli/reproduce.ts";
import { ConfigError } from "../lib/core/errors.ts";
import { scriptedReply } from "./fake_judge.ts";
import { startFakeServer } from "./fake_server.ts";
import { runCli } from "./run_cli.ts";

const PAPERS = new URL("./fixtures/papers/", import.meta.url).pathname;

/** The entries of `dir`, or `[]` when it does not exist. */
async function entries(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
  } catch {
    return [];
  }
}

Deno.test("reproduce --models: a model whose run would share a directory is refused before anything runs", async () => {
  const server = await startFakeServer({ reply: scriptedReply });
  const root = await Deno.makeTempDir({ prefix: "medeval-reproduce-models-" });
  try {
    const run = (models: string[]) =>
      reproduce({
        root,
        models,
        judge: "fake-judge",
        baseUrl: server.url,
        render: false,
        log: false,
        papersDir: PAPERS,
      });
    // The offline baselines' own names: each would be run into the baseline's directory (resuming or
    // overwriting it) and shown under the same name in the tables.
    const baseline = await assertRejects(() => run(["offline:reference", "offline:retrieval"]), ConfigError);
    assertStringIncludes(baseline.message, "--models");
    assertStringIncludes(baseline.message, "offline:reference is an offline baseline");
    assertStringIncludes(baseline.message, "runs/reproduce/climedbench/offline_reference");
    const twice = await assertRejects(() => run(["fake-model", "fake-model"]), ConfigError);
    assertStringIncludes(twice.message, "fake-model is given twice");
    const alike = await assertRejects(() => run(["org/m", "org_m"]), ConfigError);
    assertStringIncludes(alike.message, "org/m and org_m would share the run directory");
    // A model of yours whose folder name is a baseline's is not a baseline: it shares the baseline's folder.
    const lookalike = await assertRejects(() => run(["offline_reference"]), ConfigError);
    assertStringIncludes(
      lookalike.message,
      "offline:reference and offline_reference would share the run directory",
    );
    // Names that differ only in case share one folder where file names ignore case (macOS, Windows).
    const cased = await assertRejects(() => run(["Org/M", "org/m"]), ConfigError);
    assertStringIncludes(cased.message, "Org/M and org/m would share the run directory");
    for (const err of [baseline, twice, alike, lookalike, cased]) {
      assertEquals(err.message.includes("\n"), false);
    }
    // Nothing ran, nothing was written.
    assertEquals(server.requests, []);
    assertEquals(await entries(root), []);

    // On the command line: one line on standard error, exit code 2, nothing written.
    const cli = await runCli([
      "reproduce",
      "--out",
      root,
      "--no-render",
      "--models",
      "offline:reference,offline:retrieval",
      "--judge",
      "fake-judge",
      "--base-url",
      server.url,
    ]);
    assertEquals(cli.code, 2, cli.stderr);
    assertEquals(cli.errors.length, 1, cli.stderr);
    assertStringIncludes(cli.errors[0], "offline:reference is an offline baseline");
    assertEquals(await entries(root), []);
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});
