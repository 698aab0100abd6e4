/**
 * Exports the run store as JSON Lines, one file per table.
 * @module
 */
import type { RunStore } from "./run_store.ts";

/** Returns `rows` as JSON Lines text (one JSON object per line, trailing newline). */
export function toJsonl(rows: readonly unknown[]): string {
  return rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
}

/** Writes `calls.jsonl`, `outputs.jsonl`, `scores.jsonl` and `events.jsonl` of `store` into `dir`. */
export async function exportStore(store: RunStore, dir: string): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const files: [string, unknown[]][] = [
    ["calls.jsonl", store.calls()],
    ["outputs.jsonl", store.outputs()],
    ["scores.jsonl", store.scores()],
    ["events.jsonl", store.events()],
  ];
  const written: string[] = [];
  for (const [name, rows] of files) {
    const path = `${dir}/${name}`;
    await Deno.writeTextFile(path, toJsonl(rows));
    written.push(path);
  }
  return written;
}
