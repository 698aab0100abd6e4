/// <reference lib="deno.worker" />
/**
 * The worker behind `startExport` (export.ts): opens a run store read-only, writes its log files and reports the
 * paths written, or the error.
 * @module
 */
import { type ExportReply, type ExportRequest, exportStore } from "./export.ts";
import { RunStore } from "./run_store.ts";

self.onmessage = async (event: MessageEvent<ExportRequest>) => {
  const { path, dir } = event.data;
  let reply: ExportReply;
  try {
    const store = new RunStore(path, { readOnly: true });
    try {
      reply = { files: await exportStore(store, dir) };
    } finally {
      store.close();
    }
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
