/**
 * What the runs page shows of a run before any chunk is loaded: its summaries (one per condition, from
 * `summaries.json`, else `summary.json` and `conditions/<name>/summary.json`), its identity from the manifest
 * (data hash, prompt hashes, code version), its token use and cost summed over the conditions, and how its
 * metrics and groups are displayed.
 * @module
 */
import { readTextStrict } from "../core/text_file.ts";
import { InputError } from "../core/errors.ts";
import { pathExists } from "../core/fs.ts";
import type { GroupDisplay, MetricDisplay } from "../core/report_spec.ts";
import { type Summary, SummarySchema } from "../core/summary.ts";
import type { RunIdentity, UsageTotals } from "./bundle_format.ts";

/** Reads a run's summaries, baseline first; an empty list when the run has none yet (nothing written). */
export async function readSummaries(dir: string): Promise<Summary[]> {
  const all = `${dir}/summaries.json`;
  if (await pathExists(all)) {
    const parsed = JSON.parse(await readTextStrict(all));
    if (!Array.isArray(parsed)) throw new InputError({ file: all }, "expected an array of summaries");
    return parsed.map((s, i) => checkedSummary(s, all, `summary ${i + 1}`));
  }
  const one = `${dir}/summary.json`;
  if (!(await pathExists(one))) return [];
  const summaries = [checkedSummary(JSON.parse(await readTextStrict(one)), one)];
  if (await pathExists(`${dir}/conditions`)) {
    const names: string[] = [];
    for await (const entry of Deno.readDir(`${dir}/conditions`)) {
      if (entry.isDirectory) names.push(entry.name);
    }
    for (const name of names.sort()) {
      const path = `${dir}/conditions/${name}/summary.json`;
      if (await pathExists(path)) {
        summaries.push(checkedSummary(JSON.parse(await readTextStrict(path)), path));
      }
    }
  }
  return summaries;
}

function checkedSummary(value: unknown, file: string, record?: string): Summary {
  const parsed = SummarySchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InputError(
    { file, record, field: issue.path.join(".") || undefined },
    `not a summary: ${issue.message}`,
  );
}

/** Returns the run's identity as its manifest records it (fields it lacks are `null`). */
export function runIdentity(manifest: Record<string, unknown>): RunIdentity {
  const identity = (manifest.identity ?? {}) as { data_sha256?: string; prompts?: Record<string, string> };
  const data = (manifest.data ?? {}) as { path?: string; sha256?: string };
  const code = (manifest.code ?? {}) as { commit?: string; dirty?: boolean };
  const runtime = manifest.runtime as { deno?: string; os?: string } | undefined;
  return {
    dataSha256: identity.data_sha256 ?? data.sha256 ?? null,
    dataPath: data.path ?? null,
    prompts: identity.prompts ?? {},
    code: { commit: code.commit ?? null, dirty: code.dirty ?? null },
    createdAt: typeof manifest.created_at === "string" ? manifest.created_at : null,
    runtime: runtime ? `deno ${runtime.deno ?? "?"} on ${runtime.os ?? "?"}` : null,
  };
}

/** Sums token use and cost over the summaries' usage rows (a call is counted once, in the condition it served). */
export function usageTotals(summaries: readonly Summary[]): UsageTotals {
  const byRole = new Map<string, UsageTotals["rows"][number]>();
  let currency = "USD";
  const add = (a: number | null, b: number | null) => (a === null || b === null ? (a ?? b) : a + b);
  let costKnown = true;
  for (const summary of summaries) {
    for (const row of summary.usage ?? []) {
      currency = row.currency;
      if (row.cost === null && row.calls > 0) costKnown = false;
      const key = `${row.role}\t${row.model}`;
      const total = byRole.get(key);
      if (!total) {
        byRole.set(key, {
          role: row.role,
          model: row.model,
          calls: row.calls,
          prompt: row.prompt_tokens,
          completion: row.completion_tokens,
          cost: row.cost,
        });
        continue;
      }
      total.calls += row.calls;
      total.prompt = add(total.prompt, row.prompt_tokens);
      total.completion = add(total.completion, row.completion_tokens);
      total.cost = row.cost === null || total.cost === null ? null : total.cost + row.cost;
    }
  }
  const rows = [...byRole.values()];
  return {
    calls: rows.reduce((sum, r) => sum + r.calls, 0),
    promptTokens: rows.reduce<number | null>((sum, r) => add(sum, r.prompt), null),
    completionTokens: rows.reduce<number | null>((sum, r) => add(sum, r.completion), null),
    cost: costKnown && rows.length ? rows.reduce((sum, r) => sum + (r.cost ?? 0), 0) : null,
    currency,
    rows,
  };
}

/**
 * Returns the metrics to show: the benchmark's display when known, else the summary's metrics in order, a
 * metric counted as a rate when every value and interval bound of it lies in [0, 1].
 */
export function metricDisplays(
  summaries: readonly Summary[],
  known?: readonly MetricDisplay[],
): MetricDisplay[] {
  const present = new Set(summaries.flatMap((s) => Object.keys(s.metrics)));
  if (known?.length) return known.filter((m) => present.has(m.name)).map((m) => ({ ...m }));
  return [...present].map((name) => {
    const estimates = summaries.map((s) => s.metrics[name]).filter((e) => e !== undefined);
    const bounds = estimates.flatMap((e) => [e.value, ...(e.ci95 ?? [])]).filter((v) => v !== null);
    return { name, label: name, percent: bounds.length > 0 && bounds.every((v) => v >= 0 && v <= 1) };
  });
}

/** Returns the group keys of every field in display order: the benchmark's order first, then the summaries'. */
export function groupOrder(summaries: readonly Summary[], display?: GroupDisplay): Record<string, string[]> {
  const order: Record<string, string[]> = {};
  for (const summary of summaries) {
    for (const [field, groups] of Object.entries(summary.groups)) {
      const keys = new Set([...(order[field] ?? []), ...Object.keys(groups)]);
      const preferred = display?.order?.[field] ?? [];
      order[field] = [
        ...preferred.filter((k) => keys.has(k)),
        ...[...keys].filter((k) => !preferred.includes(k)),
      ];
    }
  }
  return order;
}

/** Returns the display names of group keys that differ from the keys themselves. */
export function groupLabels(
  order: Readonly<Record<string, readonly string[]>>,
  display?: GroupDisplay,
): Record<string, Record<string, string>> {
  const labels: Record<string, Record<string, string>> = {};
  if (!display?.label) return labels;
  for (const [field, keys] of Object.entries(order)) {
    for (const key of keys) {
      const label = display.label(field, key);
      if (label !== key) (labels[field] ??= {})[key] = label;
    }
  }
  return labels;
}
