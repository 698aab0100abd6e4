/**
 * Exports the run store as JSON Lines, one file per table.
 * @module
 */
import type { RunStore } from "./run_store.ts";

/** Returns `rows` as JSON Lines text (one JSON object per line, trailing newline). */
export function toJsonl(rows: readonly unknown[]): string {
  return rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
}

/** Characters of lines gathered before they are written out (the file's lines are never all in memory). */
const CHUNK_CHARS = 1 << 16;
/** Bytes a gathered chunk is encoded into: UTF-8 takes at most three bytes for each UTF-16 unit. */
const CHUNK_BYTES = 3 * CHUNK_CHARS;

/**
 * Writes `lines` (each one JSON text, without its newline) to `path`, a chunk of lines at a time, each encoded
 * into one reused buffer (a chunk too long for it, from a long line, into a buffer of its own).
 */
export async function writeJsonLines(path: string, lines: Iterable<string>): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const buffer = new Uint8Array(CHUNK_BYTES);
  try {
    let chunk = "";
    const flush = async () => {
      const bytes = 3 * chunk.length <= buffer.length ? buffer : new Uint8Array(3 * chunk.length);
      const { written } = encoder.encodeInto(chunk, bytes);
      chunk = "";
      for (let at = 0; at < written;) at += await file.write(bytes.subarray(at, written));
    };
    for (const line of lines) {
      chunk += line + "\n";
      if (chunk.length >= CHUNK_CHARS) await flush();
    }
    await flush();
  } finally {
    file.close();
  }
}

/** What the export worker is asked: the store's database file and the directory of its log. */
export interface ExportRequest {
  /** Path of `run.sqlite`. */
  path: string;
  /** Directory the log files go into. */
  dir: string;
}

/** What the export worker answers: the files written, or why it could not write them. */
export type ExportReply = { files: string[] } | { error: string };

/** A log export started ahead by {@linkcode startExport}: where it writes, the store's writes then, its result. */
interface ExportAhead {
  dir: string;
  writes: number;
  files: Promise<string[]>;
}

/** The export started ahead for each store, until {@linkcode exportStore} takes it. */
const ahead = new WeakMap<RunStore, ExportAhead>();

/** Export workers spawned ahead by {@linkcode prepareExport}, each waiting for its store's export. */
const spare = new WeakMap<RunStore, Worker>();

/** The module of the export worker. */
const EXPORT_WORKER = new URL("./export_worker.ts", import.meta.url);

/** Spawns an export worker (lib/store/export_worker.ts); it waits for an {@linkcode ExportRequest}. */
function exportWorker(module = EXPORT_WORKER): Worker {
  return new Worker(module, { type: "module" });
}

/**
 * Spawns the export worker of `store` ahead of {@linkcode startExport}, so that it has loaded its modules (in
 * its own thread, while a run's calls are under way) by the time the export starts; {@linkcode discardExport}
 * ends it if the export never starts. `module` (for tests) replaces the worker's module.
 */
export function prepareExport(store: RunStore, module: URL = EXPORT_WORKER): void {
  if (spare.has(store) || ahead.has(store)) return;
  const worker = exportWorker(module);
  // A worker that fails to load is not an error of the run: the export then starts afresh (an error a worker
  // does not handle would end this process).
  worker.onerror = (event) => {
    event.preventDefault();
    worker.terminate();
    if (spare.get(store) === worker) spare.delete(store);
  };
  spare.set(store, worker);
}

/** Ends the worker {@linkcode prepareExport} spawned for `store` if no export took it. */
export function discardExport(store: RunStore): void {
  spare.get(store)?.terminate();
  spare.delete(store);
}

/**
 * Starts writing the log files of `store` into `dir` in a worker (lib/store/export_worker.ts, reading the
 * database beside this process; the one {@linkcode prepareExport} spawned, if any), so that the export runs
 * while the rest of a run's outputs are written: {@linkcode exportStore} of the same store and directory then
 * waits for it rather than exporting again, unless the store was written to since (then it exports afresh,
 * once the worker is done).
 */
export function startExport(store: RunStore, dir: string): void {
  store.flush();
  const worker = spare.get(store) ?? exportWorker();
  spare.delete(store);
  const files = new Promise<string[]>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<ExportReply>) => {
      worker.terminate();
      if ("files" in event.data) resolve(event.data.files);
      else reject(new Error(event.data.error));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      reject(new Error(event.message));
    };
  });
  // A failed export ahead is not an error of its own: exportStore writes the files itself.
  files.catch(() => {});
  ahead.set(store, { dir, writes: store.writes, files });
  worker.postMessage({ path: store.path, dir } satisfies ExportRequest);
}

/**
 * Writes `calls.jsonl`, `outputs.jsonl`, `scores.jsonl` and `events.jsonl` of `store` into `dir`, each streamed
 * from the store a row at a time, as JSON text built from the stored columns; when {@linkcode startExport}
 * started them for this store and directory and nothing was written to it since, waits for those instead.
 */
export async function exportStore(store: RunStore, dir: string): Promise<string[]> {
  const started = ahead.get(store);
  ahead.delete(store);
  if (started) {
    const files = await started.files.catch(() => undefined);
    if (files && started.dir === dir && started.writes === store.writes) return files;
  }
  await Deno.mkdir(dir, { recursive: true });
  const files: [string, Iterable<string>][] = [
    ["calls.jsonl", store.eachCallJson()],
    ["outputs.jsonl", store.eachOutputJson()],
    ["scores.jsonl", store.eachScoreJson()],
    ["events.jsonl", store.eachEventJson()],
  ];
  const written: string[] = [];
  for (const [name, lines] of files) {
    const path = `${dir}/${name}`;
    await writeJsonLines(path, lines);
    written.push(path);
  }
  return written;
}
