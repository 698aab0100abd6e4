/**
 * The message and parameter types every role's requests are made of (OpenAI chat format).
 * @module
 */

/** One chat message in the OpenAI format. */
export interface ChatMessage {
  /** Who speaks. */
  role: "system" | "user" | "assistant";
  /** What is said. */
  content: string;
}

/** Sampling parameters of a request; they are part of the cache key. */
export interface GenerationParams {
  /** Sampling temperature; omitted = the server's default. */
  temperature?: number;
  /** Upper bound on new tokens. */
  maxTokens?: number;
  /** Sampling seed, for servers that honour it. */
  seed?: number;
  /** Ask for a JSON object reply (OpenAI `response_format: json_object`). */
  jsonMode?: boolean;
}

/** The keys of {@linkcode GenerationParams}, in the order call keys hash them. */
export const GENERATION_KEYS = ["temperature", "maxTokens", "seed", "jsonMode"] as const satisfies readonly (
  keyof GenerationParams
)[];

/** Token counts reported by the server, when it reports them. */
export interface TokenUsage {
  /** Prompt tokens. */
  prompt: number;
  /** Completion tokens. */
  completion: number;
}
