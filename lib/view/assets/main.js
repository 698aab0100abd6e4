/**
 * The viewer's entry point: loads `data/meta.js`, then shows the page the address names — runs, one run's
 * tables and figures, samples, one sample, compare, one compared item side by side.
 * @module
 */
import { html, render, useEffect, useState } from "./vendor.js";
import { loadChunk } from "./chunks.js";
import { link, parseRoute } from "./route.js";
import { RunsPage } from "./pages/runs.js";
import { RunPage } from "./pages/run.js";
import { SamplesPage } from "./pages/samples.js";
import { SamplePage } from "./pages/sample.js";
import { ComparePage } from "./pages/compare.js";
import { PairPage } from "./pages/pair.js";

const PAGES = {
  runs: RunsPage,
  run: RunPage,
  samples: SamplesPage,
  sample: SamplePage,
  compare: ComparePage,
  pair: PairPage,
};

function App({ meta }) {
  const [route, setRoute] = useState(parseRoute());
  useEffect(() => {
    const update = () => setRoute(parseRoute());
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  const Page = PAGES[route.page] ?? RunsPage;
  const tab = (page, label) =>
    html`<a class=${route.page === page ? "tab on" : "tab"} href=${link(page)}>${label}</a>`;
  return html`
    <header>
      <span class="brand">medeval viewer</span>
      ${tab("runs", "Runs")} ${tab("samples", "Samples")} ${tab(
        "compare",
        `Compare (${meta.comparisons.length})`,
      )}
    </header>
    <main data-ready="">
      <${Page} key=${route.page} meta=${meta} route=${route} />
    </main>
  `;
}

loadChunk("meta").then(
  (meta) => {
    const root = document.getElementById("app");
    root.textContent = "";
    render(html`<${App} meta=${meta} />`, root);
  },
  (
    error,
  ) => (document.getElementById("app").textContent = `The bundle's data could not be read: ${error.message}`),
);
