/**
 * Exports the run store as JSON Lines, one file per table.
 * @module
 */
import type { CallsMark, RowsMark, RunStore } from "./run_store.ts";
import { JsonLinesFile, writeLineBytes } from "./jsonl_file.ts";
import { removeQuietly } from "../core/fs.ts";
import { type FileMark, notePath, writeUnlessNoted } from "./file_note.ts";
import { type CallsAhead, partialCalls } from "./calls_ahead.ts";

/** Returns `rows` as JSON Lines text (one JSON object per line, trailing newline). */
export function toJsonl(rows: readonly unknown[]): string {
  return rows.map((r) => JSON.stringify(r)).join("\n") + (rows.length ? "\n" : "");
}

/** Writes `lines` (each one JSON text, without its newline) to `path` as a {@linkcode JsonLinesFile}. */
export async function writeJsonLines(path: string, lines: Iterable<string>): Promise<void> {
  const file = await JsonLinesFile.create(path);
  try {
    for (const line of lines) await file.append(line);
    await file.flush();
  } finally {
    file.close();
  }
}

/**
 * What the export worker is asked: `ahead`, to write the calls file of the store's log as its run goes; `export`
 * (the default), to write the log files, finishing the calls file it began for the same store and directory.
 */
export interface ExportRequest {
  /** What to do (default `export`). */
  kind?: "ahead" | "export";
  /** Path of `run.sqlite`. */
  path: string;
  /** Directory the log files go into. */
  dir: string;
  /** `ahead`: also checkpoint the store's log after each step (its run left them to the worker). */
  checkpoints?: boolean;
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

/** What {@linkcode prepareExport} is told. */
export interface PrepareOptions {
  /**
   * The log directory the export will write: given, the worker writes the calls file as the run goes (beside
   * the store: lib/store/calls_ahead.ts), and an export at the end into this directory has the rest to write.
   */
  dir?: string;
  /** The worker's module (for tests). */
  module?: URL;
}

/**
 * Spawns the export worker of `store` ahead of {@linkcode startExport}, so that it has loaded its modules (in
 * its own thread, while a run's calls are under way) by the time the export starts, and, given the log
 * directory, writes the calls file as the run goes; {@linkcode discardExport} ends it (and removes that file) if
 * the export never starts.
 */
export function prepareExport(store: RunStore, options: PrepareOptions = {}): void {
  if (spare.has(store) || ahead.has(store)) return;
  const worker = exportWorker(options.module);
  // A worker that fails to load is not an error of the run: the export then starts afresh (an error a worker
  // does not handle would end this process).
  worker.onerror = (event) => {
    event.preventDefault();
    if (spare.get(store) === worker) spare.delete(store);
    endPrepared(store, worker);
  };
  spare.set(store, worker);
  if (options.dir !== undefined) {
    // The worker checkpoints the store's log as the run goes, so that the run's commits never wait for one.
    store.leaveCheckpoints();
    worker.postMessage(
      { kind: "ahead", path: store.path, dir: options.dir, checkpoints: true } satisfies ExportRequest,
    );
  }
}

/** Ends the worker {@linkcode prepareExport} spawned for `store` if no export took it, and removes its calls file. */
export function discardExport(store: RunStore): void {
  const prepared = spare.get(store);
  spare.delete(store);
  if (prepared) endPrepared(store, prepared);
}

/** Ends a worker {@linkcode prepareExport} spawned for `store` and removes the calls file it began. */
function endPrepared(store: RunStore, worker: Worker): void {
  worker.terminate();
  removePartial(store);
  takeBackCheckpoints(store);
}

/** Removes the calls file a worker began for `store` (lib/store/calls_ahead.ts), if there is one. */
function removePartial(store: RunStore): void {
  removeQuietly(partialCalls(store.path));
}

/** Gives the checkpoints of `store`'s log back to its own connection (if still open): no worker takes them. */
function takeBackCheckpoints(store: RunStore): void {
  if (store.isOpen) store.leaveCheckpoints(false);
}

/**
 * Starts writing the log files of `store` into `dir` in a worker (lib/store/export_worker.ts, reading the
 * database beside this process; the one {@linkcode prepareExport} spawned, if any, which finishes the calls file
 * it began), so that the export runs while the rest of a run's outputs are written: {@linkcode exportStore} of
 * the same store and directory then waits for it rather than exporting again, unless the store was written to
 * since (then it exports afresh, once the worker is done).
 */
export function startExport(store: RunStore, dir: string): void {
  store.flush();
  // The worker stops checkpointing as it exports; nothing more is written meanwhile.
  takeBackCheckpoints(store);
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
  worker.postMessage({ kind: "export", path: store.path, dir } satisfies ExportRequest);
}

/**
 * Format of the log's calls file (its order and each line, `CALLS_IN_ORDER` and `callJson` of run_store.ts); a
 * file noted in another format is written again, so a change to either must change this number.
 */
const CALLS_FORMAT = 1;

/** Path of the note beside the calls file in `dir` (lib/store/file_note.ts) saying which calls it holds. */
export function callsNotePath(dir: string): string {
  return notePath(`${dir}/calls.jsonl`);
}

/**
 * What the calls file holds, as its note records it: the format and the store's {@linkcode CallsMark} (the
 * calls' number, last key and its storage time). The calls of a store are immutable and never deleted, so a
 * file noted with the store's mark is the one an export would write.
 */
function callsFileMark(mark: CallsMark): FileMark {
  return { format: CALLS_FORMAT, ...mark };
}

/**
 * Writes `calls.jsonl`, `outputs.jsonl`, `scores.jsonl` and `events.jsonl` of `store` into `dir`, each streamed
 * from the store (the calls in time order a row at a time, the rest a page of rows at a time), as JSON text
 * built from the stored columns; the calls file `calls` began is taken instead when it holds every call in
 * order, and the calls file already in `dir` is kept when its note says it holds exactly the store's calls (a
 * resumed run that stored no call, or a second export). When {@linkcode startExport} started them for this
 * store and directory and nothing was written to it since, waits for those instead. A calls file left beside
 * the store (by a worker that failed, or a run killed outright) is removed.
 */
export async function exportStore(store: RunStore, dir: string, calls?: CallsAhead): Promise<string[]> {
  const started = ahead.get(store);
  ahead.delete(store);
  if (started) {
    const files = await started.files.catch(() => undefined);
    if (files && started.dir === dir && started.writes === store.writes) return files;
  }
  await Deno.mkdir(dir, { recursive: true });
  const written: string[] = [];
  const callsPath = `${dir}/calls.jsonl`;
  try {
    // Taken first: a call stored while the file is written makes the note older than the file, never newer.
    const mark = callsFileMark(store.callsMark());
    const finished = await calls?.finish();
    // The file begun ahead is taken whatever is there already.
    await writeUnlessNoted(callsPath, mark, async () => {
      // A log on another file system than the store's cannot take the file by a rename: it is written afresh.
      const moved = finished !== undefined &&
        await Deno.rename(finished, callsPath).then(() => true, () => false);
      if (!moved) await writeJsonLines(callsPath, store.eachCallJson());
    }, finished === undefined);
  } finally {
    removePartial(store);
  }
  written.push(callsPath);
  // Outputs and scores change only as the store's rows do: a file noted with the store's rows mark is kept.
  const rows = store.rowsMark();
  const tables: [table: "outputs" | "scores", write: (path: string) => Promise<void>][] = [
    ["outputs", (path) => writeLineBytes(path, store.eachOutputLine())],
    ["scores", (path) => writeJsonLines(path, store.eachScoreJson())],
  ];
  for (const [table, write] of tables) {
    const path = `${dir}/${table}.jsonl`;
    await writeUnlessNoted(path, rowsFileMark(table, rows), () => write(path));
    written.push(path);
  }
  const events = `${dir}/events.jsonl`;
  await writeJsonLines(events, store.eachEventJson());
  written.push(events);
  return written;
}

/**
 * Format of the log's outputs and scores files (`OUTPUT_LINE` and `scoreArrayJson` of run_store.ts, and their
 * order): a file noted in another format is written again, so a change to either must change this number.
 */
const ROWS_FORMAT = 1;

/**
 * What the outputs or scores file (`table`) holds, as its note records it: the format and the store's
 * {@linkcode RowsMark} (its name, its count of rows of samples, outputs and scores written, replaced or deleted,
 * and the generation its last change drew); `undefined` for a store that keeps no count (such a file is always
 * written).
 */
function rowsFileMark(table: "outputs" | "scores", rows: RowsMark | undefined): FileMark | undefined {
  return rows && { format: ROWS_FORMAT, table, ...rows };
}
