/**
 * Exports the run store as JSON Lines, one file per table.
 * @module
 */
import type { RunStore } from "./run_store.ts";

/** Returns `rows` as JSON Lines text (one JSON object per line, trailing newline). */
export function toJsonl(rows: readonly unknown[]): string {
  return rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
}

/** Writes `rows` to `path` as JSON Lines, a batch of lines at a time (the rows are never all in memory). */
export async function writeJsonl(path: string, rows: Iterable<unknown>): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  try {
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const bytes = encoder.encode(batch.join(""));
      for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
      batch = [];
    };
    for (const row of rows) {
      batch.push(JSON.stringify(row) + "\n");
      if (batch.length >= 500) await flush();
    }
    await flush();
  } finally {
    file.close();
  }
}

/**
 * Writes `calls.jsonl`, `outputs.jsonl`, `scores.jsonl` and `events.jsonl` of `store` into `dir`, each streamed
 * from the store a row at a time.
 */
export async function exportStore(store: RunStore, dir: string): Promise<string[]> {
  await Deno.mkdir(dir, { recursive: true });
  const files: [string, Iterable<unknown>][] = [
    ["calls.jsonl", store.eachCall()],
    ["outputs.jsonl", store.eachOutput()],
    ["scores.jsonl", store.eachScore()],
    ["events.jsonl", store.events()],
  ];
  const written: string[] = [];
  for (const [name, rows] of files) {
    const path = `${dir}/${name}`;
    await writeJsonl(path, rows);
    written.push(path);
  }
  return written;
}
