/**
 * `deno task notebooks`: executes every notebook in `notebooks/` headless with the Deno kernel
 * (`jupyter nbconvert --execute`) and fails on the first cell error. Executed copies go to a temporary folder
 * (or `--output-dir DIR`), so the committed notebooks stay clean.
 * @module
 */
import { parseArgs } from "node:util";
import { projectPath } from "../core/fs.ts";

/** Executes each notebook; returns the number that failed. */
async function runNotebooks(dir: string, outputDir: string): Promise<number> {
  const notebooks = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".ipynb")).map((e) => e.name)
    .sort();
  if (notebooks.length === 0) throw new Error(`no notebooks in ${dir}`);
  let failed = 0;
  for (const name of notebooks) {
    const started = performance.now();
    const out = await new Deno.Command("jupyter", {
      args: [
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        "--ExecutePreprocessor.kernel_name=deno",
        "--ExecutePreprocessor.timeout=900",
        "--output-dir",
        outputDir,
        `${dir}/${name}`,
      ],
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).output();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (out.success) {
      console.log(`notebook ok: ${name} (${seconds}s)`);
    } else {
      failed++;
      console.error(
        `notebook FAILED: ${name} (${seconds}s)\n${new TextDecoder().decode(out.stderr).slice(-4000)}`,
      );
    }
  }
  return failed;
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { "output-dir": { type: "string" } } });
  const root = projectPath();
  const outputDir = values["output-dir"] ?? await Deno.makeTempDir({ prefix: "medeval-notebooks-" });
  const failed = await runNotebooks(`${root}notebooks`, outputDir);
  console.log(
    `${
      failed === 0 ? "all notebooks executed" : `${failed} notebook(s) failed`
    }; executed copies in ${outputDir}`,
  );
  Deno.exit(failed === 0 ? 0 : 1);
}
