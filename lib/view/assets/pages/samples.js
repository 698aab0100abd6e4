/**
 * The samples of a run in one condition: a virtualised table (id, group fields, per-sample metrics, score,
 * the judge's verdict fields, flags) with filters — group, score range, judge error, judge–human
 * disagreement, extraction failure, truncated and more — and full-text search. The filter lives in the
 * address, so every table cell elsewhere links to exactly the samples it counts.
 * @module
 */
import { html, useEffect, useMemo, useState } from "../vendor.js";
import { useAsync, useReady } from "../components/async.js";
import { VirtualTable } from "../components/table.js";
import { loadChunk } from "../chunks.js";
import { columnValue, filterFromParams, filterRows, FLAGS, sortRows } from "../query.js";
import { runSearch } from "../search.js";
import { formatValue, groupLabel } from "../format.js";
import { go, link, withParams } from "../route.js";

const MAX_FIELD_COLUMNS = 6;

/** Returns the table-core column definitions of a run's samples table. */
function columnsFor(run, rows, condition) {
  const columns = rows.conditions[condition];
  const column = (id, header, cell, meta = {}) => ({
    id,
    header,
    accessorFn: (row) => row[id],
    cell: cell ?? ((ctx) => ctx.getValue() ?? "–"),
    enableSorting: true,
    meta,
  });
  const percentOf = (metric) => run.metrics.find((m) => m.name === metric)?.percent ?? false;
  return [
    column("id", "id", (ctx) => {
      const row = ctx.row.original;
      return html`<a href=${link("sample", { run: run.key, id: row.id, cond: condition })}>${row.id}</a>`;
    }, { className: "id" }),
    ...run.fields.filter((f) => rows.fields[f]).slice(0, MAX_FIELD_COLUMNS).map((field) =>
      column(
        `field:${field}`,
        field,
        (ctx) => (ctx.getValue() === null ? "–" : groupLabel(run, field, ctx.getValue())),
      )
    ),
    ...run.rowMetrics.filter((m) => columns?.metrics[m]).map((metric) =>
      column(
        `metric:${metric}`,
        metric,
        (ctx) =>
          formatValue(ctx.getValue(), percentOf(metric) && ctx.getValue() !== 1 && ctx.getValue() !== 0, 2),
        {
          className: "num",
        },
      )
    ),
    column(
      "score",
      run.primaryScorer ? `score (${run.primaryScorer})` : "score",
      (ctx) => formatValue(ctx.getValue(), false, 2),
      {
        className: "num",
        title: "mean valid value of the primary scorer over judges and repeats",
      },
    ),
    ...Object.keys(columns?.verdict ?? {}).map((field) => column(`verdict:${field}`, field)),
    column("flags", "flags", (ctx) => {
      const bits = ctx.getValue();
      return Object.entries(FLAGS).filter(([, f]) => bits & f.bit).map(([name, f]) =>
        html`
          <span class=${`flag flag-${name}`}>${f.label}</span>
        `
      );
    }),
  ];
}

/** Returns the row object of position `i` for the table. */
function rowOf(rows, condition, columnIds, i) {
  const row = { position: i, id: rows.ids[i] };
  for (const id of columnIds) row[id] = columnValue(rows, condition, id, i);
  return row;
}

/** Returns the keys of a group field present in the run, in display order. */
function groupKeys(run, rows, field) {
  const present = rows.fields[field].values.map(String);
  const ordered = (run.groupOrder[field] ?? []).filter((k) => present.includes(k));
  return [...ordered, ...present.filter((k) => !ordered.includes(k))];
}

function Filters({ meta, run, rows, route, condition }) {
  const params = route.params;
  const set = (changes) => go(withParams(route, changes));
  const [query, setQuery] = useState(params.get("q") ?? "");
  const flags = params.getAll("flag");
  return html`<form class="filters" onSubmit=${(e) => {
    e.preventDefault();
    set({ q: query.trim() || null });
  }}>
    <label>run <select name="run" onChange=${(e) => go(link("samples", { run: e.target.value }))}>${
    meta.runs.map((r) => html`<option value=${r.key} selected=${r.key === run.key}>${r.dir}</option>`)
  }</select></label>
    <label>condition <select name="cond" onChange=${(e) => set({ cond: e.target.value })}>${
    run.conditions.map((c) => html`<option value=${c} selected=${c === condition}>${c}</option>`)
  }</select></label>
    <label class="search">search <input type="search" name="q" value=${query} placeholder="words, 中文, فارسی"
      onFocus=${() => runSearch(run, rows)} onInput=${(e) => setQuery(e.target.value)} /></label>
    <button type="submit">search</button>
    <br />
    ${
    run.fields.filter((f) => rows.fields[f]).map((field) =>
      html`<label>${field} <select name=${`g.${field}`} onChange=${(e) =>
        set({ [`g.${field}`]: e.target.value || null })}>
        <option value="">all</option>
        ${
        groupKeys(run, rows, field).map((key) =>
          html`<option value=${key} selected=${params.get(`g.${field}`) === key}>${
            groupLabel(run, field, key)
          }</option>`
        )
      }
      </select></label>`
    )
  }
    <label>score from <input type="number" step="any" name="smin" value=${params.get("smin") ?? ""}
      onChange=${(e) => set({ smin: e.target.value || null })} /></label>
    <label>to <input type="number" step="any" name="smax" value=${params.get("smax") ?? ""}
      onChange=${(e) => set({ smax: e.target.value || null })} /></label>
    <label>counted by <select name="count" onChange=${(e) => set({ count: e.target.value || null })}>
      <option value="">any</option>
      ${
    run.rowMetrics.map((m) => html`<option value=${m} selected=${params.get("count") === m}>${m}</option>`)
  }
    </select></label>
    <br />
    ${
    Object.entries(FLAGS).map(([name, flag]) =>
      html`<label class="flag-filter"><input type="checkbox" name=${`flag-${name}`} checked=${
        flags.includes(name)
      }
        onChange=${(e) =>
        set({
          flag: e.target.checked ? [...flags, name] : flags.filter((f) => f !== name),
        })} />${flag.label}</label>`
    )
  }
  </form>`;
}

/** The samples page (`#/samples?run=r0&cond=…&g.FIELD=KEY&smin=…&flag=…&q=…&sort=…`). */
export function SamplesPage({ meta, route }) {
  const run = meta.runs.find((r) => r.key === route.params.get("run")) ?? meta.runs[0];
  const condition = route.params.get("cond") ?? run.conditions[0] ?? "default";
  const query = (route.params.get("q") ?? "").trim();
  const [progress, setProgress] = useState(null);
  const rows = useAsync(() => loadChunk(`${run.key}/rows`), [run.key]);
  const hits = useAsync(
    () => (query && rows.value ? runSearch(run, rows.value).search(query) : null),
    [run.key, query, rows.value],
  );
  useEffect(() => {
    if (!query || !rows.value) return;
    return runSearch(run, rows.value).onProgress((done, total) =>
      setProgress(done < total ? `${done}/${total}` : null)
    );
  }, [run.key, query, rows.value]);
  const sort = route.params.get("sort");
  const descending = route.params.get("desc") === "1";
  const filterKey = [...route.params].filter(([k]) => !["sort", "desc", "q"].includes(k)).map((p) =>
    p.join("=")
  ).join("&");
  const searching = Boolean(query) && hits.value === undefined;
  const positions = useMemo(() => {
    if (!rows.value || searching) return null;
    const filtered = filterRows(rows.value, condition, filterFromParams(route.params), hits.value ?? null);
    return sort ? sortRows(rows.value, condition, filtered, sort, descending) : filtered;
  }, [rows.value, condition, filterKey, hits.value, sort, descending, searching]);
  const columns = useMemo(() => (rows.value ? columnsFor(run, rows.value, condition) : []), [
    rows.value,
    condition,
  ]);
  useReady(positions !== null);
  if (rows.error) return html`<p class="error">${String(rows.error)}</p>`;
  if (!rows.value) return html`<p>loading ${run.dir} …</p>`;
  const columnIds = columns.map((c) => c.id);
  return html`<section class="samples-page">
    <h1>Samples <small>${run.dir} · ${condition}</small></h1>
    <${Filters} key=${route.params.toString()} meta=${meta} run=${run} rows=${rows.value} route=${route} condition=${condition} />
    ${
    positions === null
      ? html`<p class="count">searching … ${progress ? `indexing: chunk ${progress}` : ""}</p>`
      : html`
        <p class="count" data-count=${positions.length}>${positions.length.toLocaleString("en-US")} of ${rows
          .value.ids.length.toLocaleString("en-US")} samples${query ? ` matching “${query}”` : ""}</p>
        <${VirtualTable}
          count=${positions.length}
          rowAt=${(i) => rowOf(rows.value, condition, columnIds, positions[i])}
          columns=${columns}
          sorting=${sort ? [{ id: sort, desc: descending }] : []}
          resetKey=${`${filterKey}|${query}|${sort}|${descending}`}
          onSortingChange=${(next) =>
            go(withParams(route, { sort: next[0]?.id ?? null, desc: next[0]?.desc ? "1" : null }), true)} />
      `
  }
  </section>`;
}
