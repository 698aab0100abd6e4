/// <reference lib="deno.worker" />
/**
 * The worker behind `prepareExport` and `startExport` (export.ts): asked `ahead`, opens the run store read-only
 * and writes the calls file of its log as the run goes, a step every {@linkcode STEP_MS}
 * (lib/store/calls_ahead.ts), and checkpoints the store's log after each step, off the run's thread
 * (lib/store/wal_checkpointer.ts); asked `export`, writes the log files (finishing that calls file when it is the same
 * store's and directory's) and reports the paths written, or the error.
 * @module
 */
import { type ExportReply, type ExportRequest, exportStore } from "./export.ts";
import { CallsAhead } from "./calls_ahead.ts";
import { RunStore } from "./run_store.ts";
import { WalCheckpointer } from "./wal_checkpointer.ts";

/** Milliseconds between two steps of the calls file (a step reads and writes what was stored meanwhile). */
const STEP_MS = 250;

/**
 * The calls file begun ahead: its store, its directory, the store's checkpoints, the step under way and the next
 * one's timer.
 */
let begun: {
  request: ExportRequest;
  store: RunStore;
  calls: CallsAhead;
  checkpoints?: WalCheckpointer;
  step: Promise<void>;
  timer?: ReturnType<typeof setTimeout>;
  /** Whether {@linkcode readFirstRows} has run for this store. */
  warmed?: boolean;
} | undefined;

/**
 * Reads the first outputs and scores of `store` the way the export at the end reads them all, once, while the
 * run is under way: their statements are compiled and their code has run by the time the export needs them
 * (at 2,000 one-call samples, reading them cold held the export at the run's end ~35 ms, the aggregation
 * beside it ~30 ms). What it reads is dropped; a failure here leaves the export as it was.
 */
function readFirstRows(store: RunStore): void {
  try {
    for (const _ of store.eachOutputLine()) break;
    for (const _ of store.eachScoreJson()) break;
  } catch {
    // The export at the end reads them again, and reports what fails then.
  }
}

/**
 * Runs a step of the begun calls file and checkpoints the store's log, then schedules the next; a failed step
 * gives the file up, a failed checkpoint the checkpoints (the store's own connection then takes them, past its
 * bound).
 */
function step(): void {
  if (!begun) return;
  const current = begun;
  current.step = current.calls.step().catch(() => current.calls.discard()).then(() => {
    try {
      current.checkpoints?.checkpoint();
    } catch {
      current.checkpoints?.close();
      current.checkpoints = undefined;
    }
    if (!current.warmed) {
      current.warmed = true;
      readFirstRows(current.store);
    }
    if (begun === current) current.timer = setTimeout(step, STEP_MS);
  });
}

/** Begins the calls file of `request`'s store; if it cannot, the export at the end writes every file. */
async function beginAhead(request: ExportRequest): Promise<void> {
  try {
    const store = new RunStore(request.path, { readOnly: true });
    try {
      begun = { request, store, calls: await CallsAhead.start(store), step: Promise.resolve() };
    } catch (err) {
      store.close();
      throw err;
    }
    begun.timer = setTimeout(step, STEP_MS);
  } catch {
    begun = undefined;
    return;
  }
  try {
    if (request.checkpoints) begun.checkpoints = new WalCheckpointer(request.path);
  } catch {
    // The store's own connection checkpoints, past its bound.
  }
}

/** Ends the calls file begun ahead: returns it when it is `request`'s store's and directory's, else drops it. */
async function takeAhead(
  request: ExportRequest,
): Promise<{ store: RunStore; calls: CallsAhead } | undefined> {
  const current = begun;
  begun = undefined;
  if (!current) return undefined;
  clearTimeout(current.timer);
  await current.step;
  current.checkpoints?.close();
  if (current.request.path === request.path && current.request.dir === request.dir) return current;
  current.calls.discard();
  current.store.close();
  return undefined;
}

/** The beginning of the calls file, while it is under way (the export waits for it). */
let beginning: Promise<void> = Promise.resolve();

self.onmessage = async (event: MessageEvent<ExportRequest>) => {
  const request = event.data;
  if (request.kind === "ahead") {
    beginning = beginAhead(request);
    return;
  }
  await beginning;
  let reply: ExportReply;
  try {
    const taken = await takeAhead(request);
    const store = taken?.store ?? new RunStore(request.path, { readOnly: true });
    try {
      reply = { files: await exportStore(store, request.dir, taken?.calls) };
    } finally {
      store.close();
    }
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
