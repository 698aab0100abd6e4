/**
 * A run's figures for the viewer: the Plotly specs `eval` wrote into `figures/<name>.html` (each holds its
 * figure as one JSON literal, `const f = {...};`, see lib/report/figures.ts), read back so the viewer draws
 * the same figures with the same plotly.js.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";
import { pathExists } from "../core/fs.ts";

/** A figure read from a run directory. */
export interface RunFigure {
  /** File name without `.html`. */
  name: string;
  /** Plotly traces and layout. */
  spec: { data: unknown[]; layout: Record<string, unknown> };
  /** Width and height in CSS pixels, as the file shows it. */
  size: [number, number];
}

/** Returns the width and height of the figure's element in a figure's HTML file (default 720 × 420). */
export function figureSizeOf(html: string): [number, number] {
  const match = html.match(/id="figure" style="width:(\d+)px;height:(\d+)px"/);
  return match ? [Number(match[1]), Number(match[2])] : [720, 420];
}

/** Returns the figure spec held by the text of a figure's HTML file, or `undefined` when it holds none. */
export function figureSpecOf(html: string): RunFigure["spec"] | undefined {
  const match = html.match(/const f = (\{.*\});\s*Plotly\.newPlot/s);
  if (!match) return undefined;
  try {
    const spec = JSON.parse(match[1]);
    return Array.isArray(spec.data) && spec.layout && typeof spec.layout === "object" ? spec : undefined;
  } catch {
    return undefined;
  }
}

/** Reads every figure in `<dir>/figures/` (name order); files that hold no figure spec are passed over. */
export async function readRunFigures(dir: string): Promise<RunFigure[]> {
  const folder = `${dir}/figures`;
  if (!(await pathExists(folder))) return [];
  const names: string[] = [];
  for await (const entry of Deno.readDir(folder)) {
    if (entry.isFile && entry.name.endsWith(".html")) names.push(entry.name.slice(0, -".html".length));
  }
  const figures: RunFigure[] = [];
  for (const name of names.sort()) {
    const html = await readTextStrict(`${folder}/${name}.html`);
    const spec = figureSpecOf(html);
    if (spec) figures.push({ name, spec, size: figureSizeOf(html) });
  }
  return figures;
}
