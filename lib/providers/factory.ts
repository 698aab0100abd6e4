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
  /** The flag that sets `baseUrl`, named in errors (default `--base-url`). */
  baseUrlFlag?: string;
  /** What the model is, in errors (default `model "NAME"`). */
  who?: string;
}

/**
 * Returns `baseUrl`, else `$OPENAI_BASE_URL`, checked to be an http(s) URL. `who` and `flag` name what needs it and
 * how to pass it in the {@linkcode ConfigError} thrown when there is none.
 */
export function resolveBaseUrl(baseUrl: string | undefined, who: string, flag: string): string {
  const url = baseUrl || Deno.env.get("OPENAI_BASE_URL");
  if (!url) throw new ConfigError(`${who} needs a base URL: pass ${flag} URL or set OPENAI_BASE_URL`);
  const parsed = URL.canParse(url) ? new URL(url) : null;
  if (!parsed || !["http:", "https:"].includes(parsed.protocol) || !parsed.host) {
    const from = baseUrl ? flag : "OPENAI_BASE_URL";
    throw new ConfigError(`${from}: "${url}" is not an http(s) URL (expected e.g. http://localhost:8000/v1)`);
  }
  return url;
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
  const baseUrl = resolveBaseUrl(
    settings.baseUrl,
    settings.who ?? `model "${settings.model}"`,
    settings.baseUrlFlag ?? "--base-url",
  );
  const apiKeyEnv = settings.apiKeyEnv ?? "OPENAI_API_KEY";
  return new OpenAIProvider({
    model: settings.model,
    baseURL: baseUrl,
    apiKey: Deno.env.get(apiKeyEnv),
    timeoutMs: settings.timeoutMs,
    concurrency: settings.concurrency,
  });
}
