/**
 * Writes a comparison's files into a directory: `comparison.md`, `comparison.csv` (pairs),
 * `comparison_models.csv` and `comparison.json`. Its figures are written by the caller with the project's
 * figure export (lib/report/figures.ts), alone or together with other figures.
 * @module
 */
import type { GroupDisplay } from "../core/report_spec.ts";
import type { Comparison } from "./analyze.ts";
import { comparisonJson, comparisonMarkdown, modelsCsv, pairsCsv } from "./report.ts";

/**
 * Writes the comparison's files into `dir` (created if missing); returns their paths. `display` names the
 * groups as the benchmark's tables do.
 */
export async function writeComparison(
  comparison: Comparison,
  dir: string,
  display?: GroupDisplay,
): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const files: [string, string][] = [
    ["comparison.md", comparisonMarkdown(comparison, display)],
    ["comparison.csv", pairsCsv(comparison)],
    ["comparison_models.csv", modelsCsv(comparison)],
    ["comparison.json", comparisonJson(comparison)],
  ];
  for (const [name, text] of files) await Deno.writeTextFile(`${dir}/${name}`, text);
  return files.map(([name]) => `${dir}/${name}`);
}
