/**
 * A run's figure drawn by plotly.js (the same library and spec `eval` exported it with), loaded on first use
 * from its compressed chunk. A bar of a `<metric>_by_<field>` figure links to the samples of its group.
 * @module
 */
import { html, useEffect, useRef } from "../vendor.js";
import { runScriptChunk } from "../chunks.js";
import { go, link } from "../route.js";

/** Returns the group key a bar's label stands for (labels may be display names). */
function keyOfLabel(run, field, label) {
  const labels = run.groupLabels[field] ?? {};
  return Object.keys(labels).find((key) => labels[key] === label) ?? String(label);
}

/** One figure of `run`. */
export function Figure({ run, figure }) {
  const ref = useRef(null);
  useEffect(() => {
    let live = true;
    runScriptChunk("vendor/plotly").then(() => {
      if (!live || !ref.current) return;
      const Plotly = globalThis.Plotly;
      Plotly.newPlot(ref.current, figure.spec.data, figure.spec.layout, {
        displaylogo: false,
        responsive: true,
      });
      const match = figure.name.match(/^(.+)_by_(.+)$/);
      if (match && run.fields.includes(match[2])) {
        ref.current.on("plotly_click", (event) => {
          const point = event.points[0];
          const key = keyOfLabel(run, match[2], point.x);
          go(link("samples", { run: run.key, [`g.${match[2]}`]: key, count: match[1] }));
        });
      }
    });
    return () => {
      live = false;
      if (ref.current && globalThis.Plotly) globalThis.Plotly.purge(ref.current);
    };
  }, [figure]);
  return html`
    <figure class="figure">
      <div ref=${ref} style=${`width:${figure.size[0]}px;height:${figure.size[1]}px`}></div>
      <figcaption>${figure.name}</figcaption>
    </figure>
  `;
}
