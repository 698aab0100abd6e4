/**
 * Token estimates of requests for tokens-per-minute caps: the prompt counted with js-tiktoken (cl100k_base,
 * loaded on first use) plus `max_tokens`, which is what OpenAI charges against a rate limit when a request
 * arrives. Other servers' tokenizers differ; the estimate only paces requests.
 * @module
 */
import type { ChatMessage } from "../../core/chat.ts";

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** Tokens the chat format adds per message (role and separators) and per reply primer. */
const PER_MESSAGE = 4;
const PER_REPLY = 3;

let loading: Promise<TokenCounter> | undefined;
let loaded: TokenCounter | undefined;

/** Returns the token counter if {@linkcode loadTokenCounter} has loaded it, else `undefined`. */
export function loadedTokenCounter(): TokenCounter | undefined {
  return loaded;
}

/** Returns the cl100k_base token counter, loading its ranks once (about a second) on first use. */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= (async () => {
    const [{ Tiktoken }, ranks] = await Promise.all([
      import("js-tiktoken/lite"),
      import("js-tiktoken/ranks/cl100k_base"),
    ]);
    const encoder = new Tiktoken(ranks.default);
    loaded = (text: string) => encoder.encode(text).length;
    return loaded;
  })();
  return loading;
}

/** Returns the estimated tokens of a chat request: its messages plus `maxTokens` (0 when unset). */
export function estimateChatTokens(
  messages: readonly Pick<ChatMessage, "content">[],
  maxTokens: number | undefined,
  count: TokenCounter,
): number {
  let tokens = PER_REPLY + (maxTokens ?? 0);
  for (const message of messages) tokens += PER_MESSAGE + count(message.content);
  return tokens;
}
