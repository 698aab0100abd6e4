/**
 * The shape of the requests sent to one model: its profile's token-limit parameter and allowed parameters,
 * adapted once when the server answers the documented 400 for an unsupported parameter or value (and kept for
 * the rest of the run). A shape not yet seen to succeed is sent by one request at a time, so a shape the
 * server refuses is sent once, never by every request in flight.
 * @module
 */
import type { Adaptation, ChatRequest } from "../types.ts";
import { DEFAULT_PROFILE, type ModelProfile } from "./profiles.ts";

/** The body fields a server may refuse and the shape can change: requests with none of them are never held. */
const ADAPTABLE = ["max_tokens", "max_completion_tokens", "temperature", "seed", "response_format"];

/** What a refused request's error says, as the OpenAI client reports it. */
export interface RefusalInfo {
  /** HTTP status. */
  status?: number;
  /** `error.code`, e.g. `unsupported_parameter`, `unsupported_value`. */
  code?: string | null;
  /** `error.param`, e.g. `max_tokens`. */
  param?: string | null;
  /** `error.message`. */
  message: string;
}

/** Returns the parameter a 400 names as unsupported (its `param`, else the quoted name in its message). */
function refusedParameter(info: RefusalInfo): string | undefined {
  if (info.status !== 400) return undefined;
  const documented = info.code === "unsupported_parameter" || info.code === "unsupported_value";
  if (documented && info.param) return info.param;
  return info.message.match(/Unsupported (?:parameter|value): '([a-z_]+)'/)?.[1];
}

/** A model's request shape: starts from its profile and learns from refusals. */
export class RequestShape {
  /** The token-limit parameter sent. */
  tokenLimit: ModelProfile["token_limit"];
  /** Whether `temperature` is sent. */
  temperature: boolean;
  /** Whether `seed` is sent. */
  seed: boolean;
  /** Whether JSON mode (`response_format`) is asked for. */
  jsonMode: boolean;
  /** The adaptations learned so far, in order. */
  readonly adaptations: Adaptation[] = [];
  /** Parameter sets (by their names) some request has succeeded with. */
  readonly #proven = new Set<string>();
  /** The request trying a parameter set not yet proven, by set. */
  readonly #probes = new Map<string, Promise<unknown>>();

  /** Starts from `profile` (default: the shape of a model no profile matches). */
  constructor(readonly profile: ModelProfile = DEFAULT_PROFILE) {
    this.tokenLimit = profile.token_limit;
    this.temperature = profile.sampling.includes("temperature");
    this.seed = profile.seed;
    this.jsonMode = profile.json_mode;
  }

  /** Returns the body of `request` to `model` in the current shape. */
  body(model: string, request: ChatRequest): Record<string, unknown> {
    return {
      model,
      messages: request.messages,
      ...(request.temperature !== undefined && this.temperature ? { temperature: request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { [this.tokenLimit]: request.maxTokens } : {}),
      ...(request.seed !== undefined && this.seed ? { seed: request.seed } : {}),
      ...(request.jsonMode && this.jsonMode ? { response_format: { type: "json_object" } } : {}),
    };
  }

  /**
   * Learns from a refusal of `body`: returns the adaptation when the 400 names a parameter the body sent that
   * can be changed or left out (the shape is changed), else `undefined` (the error stands).
   */
  adapt(body: Record<string, unknown>, info: RefusalInfo): Adaptation | undefined {
    const parameter = refusedParameter(info);
    const reason = info.message;
    if (parameter === "max_tokens" && "max_tokens" in body) {
      this.tokenLimit = "max_completion_tokens";
      return this.#learn({ parameter, now: "max_completion_tokens", reason });
    }
    if (parameter === "max_completion_tokens" && "max_completion_tokens" in body) {
      this.tokenLimit = "max_tokens";
      return this.#learn({ parameter, now: "max_tokens", reason });
    }
    if (parameter === "temperature" && "temperature" in body) {
      this.temperature = false;
      return this.#learn({ parameter, now: "left out (server default)", reason });
    }
    if (parameter === "seed" && "seed" in body) {
      this.seed = false;
      return this.#learn({ parameter, now: "left out", reason });
    }
    const jsonRefused = parameter === "response_format" ||
      (info.status === 400 && parameter === undefined && /response_format|json/i.test(info.message));
    if (jsonRefused && "response_format" in body) {
      this.jsonMode = false;
      return this.#learn({ parameter: "response_format", now: "left out (no JSON mode)", reason });
    }
    return undefined;
  }

  /**
   * Runs `send` with the body of `request` in the current shape: at once when it carries none of the parameters
   * a server may refuse or a request with the same parameters has succeeded, else after any other request trying the same parameters has finished (so a shape
   * the server refuses is sent once); the body is built again after each wait, as the shape may have changed.
   */
  async send<T>(
    model: string,
    request: ChatRequest,
    send: (body: Record<string, unknown>) => Promise<T>,
  ): Promise<T> {
    for (;;) {
      const body = this.body(model, request);
      const set = Object.keys(body).sort().join(",");
      const pending = this.#probes.get(set);
      if (pending) {
        await pending.catch(() => {});
        continue;
      }
      if (this.#proven.has(set) || !ADAPTABLE.some((key) => key in body)) return send(body);
      const probe = send(body);
      this.#probes.set(set, probe);
      try {
        const result = await probe;
        this.#proven.add(set);
        return result;
      } finally {
        this.#probes.delete(set);
      }
    }
  }

  #learn(adaptation: Adaptation): Adaptation {
    this.adaptations.push(adaptation);
    return adaptation;
  }
}
