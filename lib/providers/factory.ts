/**
 * Builds a provider from command-line settings: `offline:*` names give offline baselines, anything else an
 * OpenAI-compatible endpoint whose key is read from an environment variable (never from a flag).
 * @module
 */
import { ConfigError } from "../core/errors.ts";
import type { Sample } from "../core/sample.ts";
import { ReferenceProvider, RetrievalProvider } from "./offline.ts";
import { OpenAIProvider } from "./openai.ts";
import type { ChatProvider } from "./types.ts";

/** Offline model names and what they are. */
export const OFFLINE_MODELS: Record<string, string> = {
  "offline:reference": "answers with the question's own reference answer (ceiling / judge sanity check)",
  "offline:retrieval": "answers with the BM25-nearest reference answer of another question (floor)",
};

/** Settings of one provider. */
export interface ProviderSettings {
  /** Model name, or an `offline:*` baseline. */
  model: string;
  /** Base URL of the OpenAI-compatible API (default `$OPENAI_BASE_URL`). */
  baseUrl?: string;
  /** Environment variable holding the API key (default `OPENAI_API_KEY`). */
  apiKeyEnv?: string;
  /** Request timeout, in milliseconds. */
  timeoutMs?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

/** Returns the provider for `settings`; `corpus` feeds the retrieval baseline. Throws {@linkcode ConfigError}. */
export function createProvider(settings: ProviderSettings, corpus: readonly Sample[] = []): ChatProvider {
  if (settings.model === "offline:reference") return new ReferenceProvider();
  if (settings.model === "offline:retrieval") return new RetrievalProvider(corpus);
  if (settings.model.startsWith("offline:")) {
    throw new ConfigError(
      `unknown offline model "${settings.model}"; known: ${Object.keys(OFFLINE_MODELS).join(", ")}`,
    );
  }
  const baseUrl = settings.baseUrl ?? Deno.env.get("OPENAI_BASE_URL");
  if (!baseUrl) {
    throw new ConfigError(
      `model "${settings.model}" needs a base URL: pass --base-url URL or set OPENAI_BASE_URL`,
    );
  }
  try {
    new URL(baseUrl);
  } catch {
    throw new ConfigError(`base URL "${baseUrl}" is not a URL (expected e.g. http://localhost:8000/v1)`);
  }
  const apiKeyEnv = settings.apiKeyEnv ?? "OPENAI_API_KEY";
  return new OpenAIProvider({
    model: settings.model,
    baseURL: baseUrl,
    apiKey: Deno.env.get(apiKeyEnv),
    timeoutMs: settings.timeoutMs,
    concurrency: settings.concurrency,
  });
}
