/**
 * The Batch API calls batch mode makes, through npm:openai: upload a JSONL input file (`POST /files`, purpose
 * `batch`), create a batch of `/v1/chat/completions` requests carrying a submission id as metadata
 * (`POST /batches`), check it (`GET /batches/{id}`), find it by its submission id (`GET /batches`), and
 * download its output and error files (`GET /files/{id}/content`). Failures become classified
 * {@linkcode ProviderError}s.
 * @module
 */
import OpenAI, { toFile } from "openai";
import { CHAT_ENDPOINT } from "./batch_jsonl.ts";
import { classifyClientError as classifyError } from "../transport/client_errors.ts";
import { endpointClientOptions, type EndpointClientSettings } from "../transport/client_options.ts";
import { type BatchApi, type BatchState, SUBMISSION_METADATA_KEY } from "./batch_api.ts";

/** Transfers of whole files get at least this long, whatever the request timeout (ten minutes). */
const FILE_TIMEOUT_MS = 600_000;

/** The Batch API of the server an OpenAI client points at (its base URL, key and no-retry setting). */
export class OpenAIBatchApi implements BatchApi {
  readonly #client: OpenAI;
  readonly #files: OpenAI;

  /** The Batch API of the endpoint `settings` name, through a client of its own. */
  static forEndpoint(settings: EndpointClientSettings): OpenAIBatchApi {
    return new OpenAIBatchApi(new OpenAI(endpointClientOptions(settings)));
  }

  /** Uses `client` for batch calls and a copy with a longer timeout for file transfers. */
  constructor(client: OpenAI) {
    this.#client = client;
    this.#files = client.withOptions({ timeout: Math.max(client.timeout, FILE_TIMEOUT_MS) });
  }

  /** Uploads a JSONL input file (multipart, purpose `batch`). */
  async upload(text: string, name: string): Promise<string> {
    try {
      const file = await this.#files.files.create({
        file: await toFile(new TextEncoder().encode(text), name, { type: "application/jsonl" }),
        purpose: "batch",
      });
      return file.id;
    } catch (err) {
      throw classifyError(err);
    }
  }

  /** Creates a batch of chat completions (completion window 24 h). */
  async create(fileId: string, submissionId: string): Promise<BatchState> {
    try {
      return batchState(
        await this.#client.batches.create({
          input_file_id: fileId,
          endpoint: CHAT_ENDPOINT,
          completion_window: "24h",
          metadata: { [SUBMISSION_METADATA_KEY]: submissionId },
        }),
      );
    } catch (err) {
      throw classifyError(err);
    }
  }

  /** Returns a batch's state. */
  async retrieve(batchId: string): Promise<BatchState> {
    try {
      return batchState(await this.#client.batches.retrieve(batchId));
    } catch (err) {
      throw classifyError(err);
    }
  }

  /** Pages through the batches, newest first, until the tagged one or one older than `since` (less an hour). */
  async findBySubmission(submissionId: string, since: Date): Promise<BatchState | undefined> {
    const oldest = since.getTime() / 1000 - 3600;
    try {
      for await (const batch of this.#client.batches.list({ limit: 100 })) {
        if (batch.metadata?.[SUBMISSION_METADATA_KEY] === submissionId) return batchState(batch);
        if (batch.created_at < oldest) return undefined;
      }
      return undefined;
    } catch (err) {
      throw classifyError(err);
    }
  }

  /** Downloads a file's content as text. */
  async download(fileId: string): Promise<string> {
    try {
      const response = await this.#files.files.content(fileId);
      return await response.text();
    } catch (err) {
      throw classifyError(err);
    }
  }
}

function batchState(batch: OpenAI.Batches.Batch): BatchState {
  const errors = batch.errors?.data?.map((e) =>
    [e.line ? `line ${e.line}` : "", e.message].filter(Boolean).join(": ")
  );
  return {
    id: batch.id,
    status: batch.status,
    outputFileId: batch.output_file_id ?? undefined,
    errorFileId: batch.error_file_id ?? undefined,
    counts: {
      total: batch.request_counts?.total ?? 0,
      completed: batch.request_counts?.completed ?? 0,
      failed: batch.request_counts?.failed ?? 0,
    },
    errors: errors?.length ? errors.join("; ") : undefined,
  };
}
