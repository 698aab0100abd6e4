/**
 * The viewer's libraries, pinned in one place: preact + htm for the pages (no build step for templates),
 * TanStack Table (table-core) and TanStack Virtual (virtual-core) for the samples table, MiniSearch for
 * full-text search and jsdiff for the marked differences of side-by-side transcripts. `deno task view`
 * bundles them with the viewer into one classic script (a page opened from file:// cannot load modules).
 * Plotly is loaded apart, on demand (lib/view/app_build.ts writes it as a compressed chunk).
 * @module
 */
export { h, render } from "npm:preact@10.29.8";
export { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "npm:preact@10.29.8/hooks";
// deno-lint-ignore no-import-prefix
import htm from "npm:htm@3.1.1";
// deno-lint-ignore no-import-prefix
import { h } from "npm:preact@10.29.8";
export { createTable, getCoreRowModel } from "npm:@tanstack/table-core@8.21.3";
export {
  elementScroll,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
} from "npm:@tanstack/virtual-core@3.19.11";
export { default as MiniSearch } from "npm:minisearch@7.2.0";
export { diffArrays } from "npm:diff@9.0.0";

/** Tagged templates that build preact elements (`html\`<div>${x}</div>\``). */
export const html = htm.bind(h);
