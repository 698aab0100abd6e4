/**
 * The viewer's static files: `index.html`, `style.css`, `app.js` — the browser code of `lib/view/assets/` and
 * its libraries (preact, htm, TanStack Table and Virtual, MiniSearch, jsdiff) bundled by `deno bundle` into one
 * classic script, since a page opened from `file://` may not load ES modules — and, as compressed chunks
 * loaded when first needed, the search worker and plotly.js.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";
import { resolve } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { projectPath } from "../core/fs.ts";
import type { ChunkWriter } from "./chunk_writer.ts";

/** Where the viewer's browser code is. */
const ASSETS = projectPath("lib/view/assets");

/** The title of the viewer's page (what marks a folder as an earlier viewer, which may be replaced). */
export const VIEWER_TITLE = "medeval viewer";

/** The page every view is shown in. */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${VIEWER_TITLE}</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<div id="app">loading …</div>
<script src="app.js"></script>
</body>
</html>
`;

/** Bundles `lib/view/assets/<entry>` and what it imports into `output` (an IIFE); throws when it fails. */
export async function bundleScript(entry: string, output: string): Promise<void> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--config",
      projectPath("deno.json"),
      "--platform",
      "browser",
      "--format",
      "iife",
      "--output",
      resolve(output),
      `${ASSETS}/${entry}`,
    ],
    cwd: projectPath(),
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  if (!result.success) {
    const message = new TextDecoder().decode(result.stderr).trim().split("\n").find((l) => l.trim()) ?? "";
    throw new ConfigError(
      `view: bundling the viewer (deno bundle lib/view/assets/${entry}) failed: ${message}`,
    );
  }
}

/**
 * Writes `index.html`, `style.css` and `app.js` into `out`, and as chunks the search worker (started from a
 * Blob, since a page opened from file:// may not start a worker from a file) and plotly.js.
 */
export async function writeApp(out: string, writer: ChunkWriter): Promise<void> {
  await Deno.mkdir(out, { recursive: true });
  await Deno.writeTextFile(`${out}/index.html`, INDEX_HTML);
  await Deno.copyFile(`${ASSETS}/style.css`, `${out}/style.css`);
  await bundleScript("main.js", `${out}/app.js`);
  const worker = await Deno.makeTempFile({ suffix: ".js" });
  try {
    await bundleScript("search_worker.js", worker);
    await writer.compressedScript("vendor/search-worker", await readTextStrict(worker));
  } finally {
    await Deno.remove(worker);
  }
  await writer.compressedScript(
    "vendor/plotly",
    await readTextStrict(projectPath("node_modules/plotly.js-dist/plotly.js")),
  );
}
