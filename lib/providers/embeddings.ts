/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint (`--embed-model`), cached in the run store like
 * every other call (role `embed`, one call per text, keyed by model and text) and retried like chat calls.
 * @module
 */
import OpenAI from "openai";
import { hashValue } from "../core/hash.ts";
import type { Embedder } from "../core/task.ts";
import type { RunStore } from "../store/run_store.ts";
import { Limiter } from "./limiter.ts";
import { classifyError, endpointLabel } from "./openai.ts";
import { registerSecret } from "./redact.ts";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from "./retry.ts";

/** Settings of an embeddings endpoint. */
export interface EmbedderConfig {
  /** Embeddings model name, e.g. `bge-m3`. */
  model: string;
  /** Base URL including the API prefix. */
  baseURL: string;
  /** API key (registered for redaction; never stored). */
  apiKey?: string;
  /** Request timeout, in milliseconds. */
  timeoutMs?: number;
  /** Requests in flight. */
  concurrency?: number;
}

/** An {@linkcode Embedder} that asks the endpoint only for texts the run store does not hold yet. */
export class StoreEmbedder implements Embedder {
  /** `model @ host/path`. */
  readonly label: string;
  readonly #client: OpenAI;
  readonly #limiter: Limiter;

  /** Creates the embedder over `store`. */
  constructor(
    readonly config: EmbedderConfig,
    readonly store: RunStore,
    readonly retry: RetryPolicy = DEFAULT_RETRY_POLICY,
  ) {
    registerSecret(config.apiKey);
    this.label = endpointLabel(config.model, config.baseURL);
    this.#client = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey || "not-needed",
      maxRetries: 0,
      timeout: config.timeoutMs ?? 120_000,
    });
    this.#limiter = new Limiter(config.concurrency ?? 8);
  }

  /** Returns one vector per text, from the store when present. */
  embed(texts: string[]): Promise<number[][]> {
    return Promise.all(texts.map((text) => this.#one(text)));
  }

  async #one(text: string): Promise<number[]> {
    const key = hashValue({ embed: this.config.model, text });
    const stored = this.store.getCall(key);
    if (stored) return JSON.parse(stored.text);
    return await this.#limiter.run(async () => {
      const started = performance.now();
      let attempts = 0;
      const vector = await withRetry(async (n) => {
        attempts = n;
        try {
          const response = await this.#client.embeddings.create({ model: this.config.model, input: text });
          return response.data[0].embedding;
        } catch (err) {
          throw classifyError(err);
        }
      }, this.retry);
      this.store.putCall({
        key,
        role: "embed",
        model: this.config.model,
        request: { messages: [{ role: "user", content: text }], params: { embeddings: true } },
        text: JSON.stringify(vector),
        finishReason: null,
        usage: null,
        attempts,
        latencyMs: Math.round(performance.now() - started),
        createdAt: new Date().toISOString(),
      });
      return vector;
    });
  }
}
