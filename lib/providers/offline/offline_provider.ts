/**
 * What every offline stand-in shares: it is labelled offline, has no server to limit, and answers synchronously
 * from the request (the sample and the answer ride along with it and are never sent anywhere).
 * @module
 */
import type { Sample } from "../../core/sample.ts";
import { type ChatProvider, type ChatRequest, type ChatResponse, ProviderError } from "../types.ts";

/** Base of the offline stand-ins: a subclass names itself and says how it answers one request. */
export abstract class OfflineProvider implements ChatProvider {
  /** The `offline:*` name. */
  abstract readonly model: string;
  /** Label that says what it is, shown in tables. */
  abstract readonly label: string;
  /** Always `true`: its results are labelled offline everywhere. */
  readonly offline = true;
  /** No server, so no real limit. */
  readonly concurrency = 64;

  /** Answers `request`; a thrown {@linkcode ProviderError} becomes a rejection. */
  complete(request: ChatRequest): Promise<ChatResponse> {
    return Promise.try(() => this.answer(request));
  }

  /** Returns the reply to `request`. */
  protected abstract answer(request: ChatRequest): ChatResponse;

  /** Returns the request's sample; throws a non-retryable error naming this stand-in when it has none. */
  protected sampleOf(request: ChatRequest): Sample {
    if (!request.sample) throw new ProviderError(`${this.model} needs the sample`, { retryable: false });
    return request.sample;
  }

  /** Returns the sample and the answer a judge stand-in grades; throws when the request lacks them. */
  protected judgedAnswer(request: ChatRequest): { sample: Sample; answer: string } {
    if (!request.sample || request.answer === undefined) {
      throw new ProviderError(`${this.model} needs the sample and the answer`, { retryable: false });
    }
    return { sample: request.sample, answer: request.answer };
  }
}
