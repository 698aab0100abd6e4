/**
 * Figures: Plotly figure specs with paper-ready defaults, written as standalone HTML (no browser needed) and
 * rendered to SVG, PNG and PDF in headless Chromium (puppeteer-core + plotly.js-dist's `Plotly.toImage`).
 * @module
 */
import type { Browser, Page } from "puppeteer-core";
import type { Estimate } from "../core/summary.ts";
import { findChromium } from "./chromium.ts";
import { pathExists, projectPath } from "../core/fs.ts";

/** A Plotly figure: traces and layout, as plain JSON (defined with the other report shapes in core). */
export type { FigureSpec } from "../core/report_spec.ts";
import type { FigureSpec } from "../core/report_spec.ts";

/** Okabe–Ito palette: distinguishable with the common colour-vision deficiencies. */
export const PALETTE = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#CC79A7",
  "#56B4E9",
  "#D55E00",
  "#F0E442",
  "#000000",
];

/** Font stack with CJK coverage, so Chinese labels render in exports. */
const FONT_FAMILY = "Arial, 'Noto Sans CJK SC', 'Noto Sans', 'DejaVu Sans', sans-serif";

/** Returns `layout` merged over paper defaults: 14 px text, white background, palette, margins. */
export function paperLayout(layout: Record<string, unknown>): Record<string, unknown> {
  return {
    font: { family: FONT_FAMILY, size: 14, color: "#000" },
    colorway: PALETTE,
    paper_bgcolor: "#fff",
    plot_bgcolor: "#fff",
    margin: { l: 70, r: 20, t: 50, b: 70 },
    ...layout,
  };
}

/** Where the plotly.js bundle lives (the npm package, installed into node_modules by Deno). */
function plotlyBundlePath(): string {
  return projectPath("node_modules/plotly.js-dist/plotly.js");
}

/** Writes `<name>.html` showing the figure with `plotly.js` copied beside it; needs no browser to make. */
async function writeFigureHtml(dir: string, name: string, spec: FigureSpec): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const bundle = `${dir}/plotly.js`;
  if (!(await pathExists(bundle))) {
    // A hard link: every figure folder opens on its own, without a 10 MB copy each (a copy across devices).
    await Deno.link(plotlyBundlePath(), bundle).catch(() => Deno.copyFile(plotlyBundlePath(), bundle));
  }
  const path = `${dir}/${name}.html`;
  const json = JSON.stringify({ data: spec.data, layout: spec.layout }).replaceAll("</", "<\\/");
  await Deno.writeTextFile(
    path,
    `<!doctype html>\n<html><head><meta charset="utf-8"><title>${name}</title><script src="plotly.js"></script></head>\n` +
      `<body><div id="figure" style="width:${spec.width ?? 720}px;height:${spec.height ?? 420}px"></div>\n` +
      `<script>const f = ${json}; Plotly.newPlot("figure", f.data, f.layout, {responsive: true});</script></body></html>\n`,
  );
  return path;
}

/**
 * Returns `svg` with the attributes of every element in name order: Plotly sets some (the root's `style`)
 * earlier or later depending on timing, which changes the serialised order but not the picture.
 */
export function sortSvgAttributes(svg: string): string {
  return svg.replace(/<([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"]*")+)(\s*\/?)>/g, (_, name, attrs, close) => {
    const sorted = [...attrs.matchAll(/\s+([\w:-]+)="([^"]*)"/g)]
      .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
      .map((m) => ` ${m[1]}="${m[2]}"`);
    return `<${name}${sorted.join("")}${close.trim()}>`;
  });
}

/**
 * Returns `svg` with its generated element ids (Plotly makes random ones) renamed in order of appearance, so
 * the same figure always gives the same bytes.
 */
export function normalizeSvgIds(svg: string): string {
  const ids = [...new Set([...svg.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]))];
  let out = svg;
  ids.forEach((id, i) => {
    const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(new RegExp(`(["'(#])${escaped}(?=["')])`, "g"), `$1fig-id-${i}`);
  });
  return out;
}

/**
 * Returns Plotly's asymmetric error bars (`array` above, `arrayminus` below) for `estimates` scaled by `scale`
 * (100 for percentages); missing estimates get none. Style (colour, width) is the caller's.
 */
export function ciErrorBars(
  estimates: readonly (Estimate | undefined)[],
  scale: number,
): { type: "data"; symmetric: false; array: (number | null)[]; arrayminus: (number | null)[] } {
  const bar = (e: Estimate | undefined, side: 0 | 1) =>
    e?.ci95 && e.value !== null ? (side ? e.ci95[1] - e.value : e.value - e.ci95[0]) * scale : null;
  return {
    type: "data",
    symmetric: false,
    array: estimates.map((e) => bar(e, 1)),
    arrayminus: estimates.map((e) => bar(e, 0)),
  };
}

/** Formats of {@linkcode FigureRenderer.render}. */
export type ImageFormat = "svg" | "png" | "pdf";

/** Renders figure specs to image files in one headless Chromium; close it when done. */
export class FigureRenderer {
  readonly #browser: Browser;
  #page?: Promise<Page>;

  private constructor(browser: Browser) {
    this.#browser = browser;
  }

  /** Starts headless Chromium (flags for a closed network: no background traffic). */
  static async launch(): Promise<FigureRenderer> {
    // Loaded on first use: a run that renders no figure never loads puppeteer.
    const { default: puppeteer } = await import("puppeteer-core");
    const browser = await puppeteer.launch({
      executablePath: findChromium(),
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    });
    return new FigureRenderer(browser);
  }

  /** Writes `<dir>/<name>.<format>` for each format; returns the paths. */
  async render(
    dir: string,
    name: string,
    spec: FigureSpec,
    formats: readonly ImageFormat[] = ["svg", "png", "pdf"],
  ): Promise<string[]> {
    await Deno.mkdir(dir, { recursive: true });
    const page = await this.#plotlyPage();
    const width = spec.width ?? 720;
    const height = spec.height ?? 420;
    // fixed trace uids: Plotly otherwise draws random ones into class names, and SVGs would differ per run
    const data = spec.data.map((trace, i) => ({ uid: `trace${i}`, ...trace }));
    const figure = { data, layout: { ...spec.layout, width, height } };
    const toImage = (format: "svg" | "png", scale: number) =>
      page.evaluate(
        (fig, fmt, w, h, s) =>
          // deno-lint-ignore no-explicit-any
          (globalThis as any).Plotly.toImage(fig, { format: fmt, width: w, height: h, scale: s }) as Promise<
            string
          >,
        figure,
        format,
        width,
        height,
        scale,
      );
    const written: string[] = [];
    const svgUrl = await toImage("svg", 1);
    const svg = normalizeSvgIds(sortSvgAttributes(decodeURIComponent(svgUrl.slice(svgUrl.indexOf(",") + 1))));
    if (formats.includes("svg")) {
      await Deno.writeTextFile(`${dir}/${name}.svg`, svg);
      written.push(`${dir}/${name}.svg`);
    }
    if (formats.includes("png")) {
      const pngUrl = await toImage("png", 3);
      const bytes = Uint8Array.from(atob(pngUrl.slice(pngUrl.indexOf(",") + 1)), (c) => c.charCodeAt(0));
      await Deno.writeFile(`${dir}/${name}.png`, bytes);
      written.push(`${dir}/${name}.png`);
    }
    if (formats.includes("pdf")) {
      const pdfPage = await this.#browser.newPage();
      try {
        await pdfPage.setContent(
          `<!doctype html><html><head><style>@page{margin:0}html,body{margin:0}</style></head><body>${svg}</body></html>`,
        );
        const pdf = await pdfPage.pdf({
          width: `${width}px`,
          height: `${height}px`,
          printBackground: true,
          pageRanges: "1",
        });
        await Deno.writeFile(`${dir}/${name}.pdf`, pdf);
        written.push(`${dir}/${name}.pdf`);
      } finally {
        await pdfPage.close();
      }
    }
    return written;
  }

  /** The page with plotly.js loaded, made once per renderer (parsing the bundle costs about a second). */
  #plotlyPage(): Promise<Page> {
    this.#page ??= (async () => {
      const page = await this.#browser.newPage();
      await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>');
      await page.addScriptTag({ path: plotlyBundlePath() });
      return page;
    })();
    return this.#page;
  }

  /** Closes Chromium. */
  async close(): Promise<void> {
    await this.#browser.close();
  }
}

/** Figures to write into one directory. */
export interface FigureSet {
  /** Output directory. */
  dir: string;
  /** Figures by file name (without extension). */
  figures: Record<string, FigureSpec>;
}

/**
 * Writes HTML for every figure of every set and, when `render`, the image `formats` (default SVG, PNG, PDF),
 * all in one Chromium session; returns all paths written.
 */
export async function exportFigureSets(
  sets: readonly FigureSet[],
  render = true,
  formats: readonly ImageFormat[] = ["svg", "png", "pdf"],
): Promise<string[]> {
  const written: string[] = [];
  for (const { dir, figures } of sets) {
    for (const [name, spec] of Object.entries(figures)) written.push(await writeFigureHtml(dir, name, spec));
  }
  if (!render || sets.every((s) => Object.keys(s.figures).length === 0)) return written;
  const renderer = await FigureRenderer.launch();
  try {
    for (const { dir, figures } of sets) {
      for (const [name, spec] of Object.entries(figures)) {
        written.push(...await renderer.render(dir, name, spec, formats));
      }
    }
  } finally {
    await renderer.close();
  }
  return written;
}

/**
 * Writes HTML for every figure and, when `render` (default), SVG/PNG/PDF in one Chromium session; returns all
 * paths written.
 */
export function exportFigures(
  dir: string,
  figures: Record<string, FigureSpec>,
  render = true,
): Promise<string[]> {
  return exportFigureSets([{ dir, figures }], render);
}
