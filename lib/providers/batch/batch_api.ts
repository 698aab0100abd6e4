/**
 * What batch mode asks of a server's Batch API ({@linkcode BatchApi}), the state of a batch, and
 * {@linkcode endpointBatchApi}: the Batch API of an OpenAI-compatible endpoint, whose npm:openai client is loaded
 * only when a batch is first submitted or looked up (a run without `--batch` never loads it).
 * @module
 */
import { importLater } from "../../core/import_later.ts";
import type { EndpointClientSettings } from "../transport/client_options.ts";

/** The metadata key carrying the submission id of a batch. */
export const SUBMISSION_METADATA_KEY = "medeval_submission";

/** A batch as batch mode needs to know it. */
export interface BatchState {
  /** Batch id. */
  id: string;
  /** `validating`, `in_progress`, `finalizing`, `completed`, `failed`, `expired`, `cancelling`, `cancelled`. */
  status: string;
  /** File of the answered requests, once there is one. */
  outputFileId?: string;
  /** File of the failed requests, once there is one. */
  errorFileId?: string;
  /** Requests in the batch, finished and failed so far. */
  counts: { total: number; completed: number; failed: number };
  /** Why the batch failed (its validation errors), if it did. */
  errors?: string;
}

/** The statuses a batch never leaves. */
export const FINAL_BATCH_STATUSES: ReadonlySet<string> = new Set([
  "completed",
  "failed",
  "expired",
  "cancelled",
]);

/** What batch mode asks of a server that implements the Batch API. */
export interface BatchApi {
  /** Uploads a JSONL input file and returns its file id. */
  upload(text: string, name: string): Promise<string>;
  /** Creates a batch of chat completions from an uploaded file, tagged with `submissionId`. */
  create(fileId: string, submissionId: string): Promise<BatchState>;
  /** Returns a batch's current state. */
  retrieve(batchId: string): Promise<BatchState>;
  /** Returns the batch tagged with `submissionId`, looking no further back than `since`, if there is one. */
  findBySubmission(submissionId: string, since: Date): Promise<BatchState | undefined>;
  /** Returns the text of a file (a batch's output or error file). */
  download(fileId: string): Promise<string>;
}

/**
 * Returns the Batch API of the OpenAI-compatible endpoint `settings` name; npm:openai is loaded on its first
 * call, not before.
 */
export function endpointBatchApi(settings: EndpointClientSettings): BatchApi {
  let api: Promise<BatchApi> | undefined;
  const load = () =>
    api ??= importLater<typeof import("./openai_batch_api.ts")>("./openai_batch_api.ts", import.meta.url)
      .then(({ OpenAIBatchApi }) => OpenAIBatchApi.forEndpoint(settings));
  return {
    upload: async (text, name) => (await load()).upload(text, name),
    create: async (fileId, submissionId) => (await load()).create(fileId, submissionId),
    retrieve: async (batchId) => (await load()).retrieve(batchId),
    findBySubmission: async (submissionId, since) => (await load()).findBySubmission(submissionId, since),
    download: async (fileId) => (await load()).download(fileId),
  };
}
