/**
 * The shape of the requests sent to one model: its profile's token-limit parameter and allowed parameters (a
 * temperature above the profile's ceiling capped), the role's extra body parameters, adapted once when the
 * server answers the documented 400 for an unsupported parameter or value (and kept for the rest of the run).
 * Requests are never held back to try a shape first: each would cost a whole reply's latency at the start of
 * every run, while servers that refuse a parameter do so at once. The requests in flight when a refusal arrives
 * were built in the old shape; their refusals change nothing more (the shape learns each change once) and each
 * is sent again in the new shape. It notes what it sent, for the run's manifest.
 * @module
 */
import type {
  Adaptation,
  ChatRequest,
  RefusalInfo,
  RefusalLesson,
  RequestShaper,
  RequestShapeRecord,
} from "../types.ts";
import { DEFAULT_PROFILE, type ModelProfile } from "./profiles.ts";

/** What a shape adds to its profile: the role's extra body parameters and the endpoint's API version. */
export interface RequestShapeOptions {
  /** Extra body parameters sent with every request (checked against the profile before). */
  extraBody?: Readonly<Record<string, unknown>>;
  /** Azure OpenAI's `api-version` of the endpoints (recorded; the client sends it). */
  apiVersion?: string;
}

/** The body parameters a server may refuse that a shape can change or leave out. */
const ADAPTABLE = ["max_tokens", "max_completion_tokens", "temperature", "seed", "response_format"] as const;
type AdaptableParameter = typeof ADAPTABLE[number];

/** Returns the parameter a 400 names as unsupported (its `param`, else the quoted name in its message). */
function parameterRefused(info: RefusalInfo): string | undefined {
  if (info.status !== 400) return undefined;
  const documented = info.code === "unsupported_parameter" || info.code === "unsupported_value";
  if (documented && info.param) return info.param;
  return info.message.match(/Unsupported (?:parameter|value): '([a-z_]+)'/)?.[1];
}

/**
 * Returns the parameter of `body` a refusal (`info`) is about when a request shape can change or leave it out:
 * the one the 400 names, or JSON mode for a 400 naming none that speaks of `response_format` or JSON; else
 * `undefined` (the error stands).
 */
export function adaptableRefusal(
  body: Record<string, unknown>,
  info: RefusalInfo,
): AdaptableParameter | undefined {
  const named = parameterRefused(info);
  if (named !== undefined) {
    const parameter = ADAPTABLE.find((p) => p === named);
    return parameter !== undefined && parameter in body ? parameter : undefined;
  }
  const json = info.status === 400 && /response_format|json/i.test(info.message);
  return json && "response_format" in body ? "response_format" : undefined;
}

/** A model's request shape: starts from its profile and learns from refusals. */
export class RequestShape implements RequestShaper {
  /** The token-limit parameter sent. */
  tokenLimit: ModelProfile["token_limit"];
  /** Whether `temperature` is sent. */
  temperature: boolean;
  /** Whether `seed` is sent. */
  seed: boolean;
  /** Whether JSON mode (`response_format`) is asked for. */
  jsonMode: boolean;
  /** Extra body parameters sent with every request. */
  readonly extraBody: Readonly<Record<string, unknown>>;
  /** The adaptations made so far, in order (refusals learned, temperatures capped). */
  readonly adaptations: Adaptation[] = [];
  readonly #apiVersion: string | undefined;
  /** Body parameters sent (besides model and messages), and parameters asked for but left out. */
  readonly #sent = new Set<string>();
  readonly #leftOut = new Set<string>();
  /** Temperatures asked for above the profile's ceiling (each told once). */
  readonly #capped = new Set<number>();

  /** Starts from `profile` (default: the shape of a model no profile matches). */
  constructor(readonly profile: ModelProfile = DEFAULT_PROFILE, options: RequestShapeOptions = {}) {
    this.tokenLimit = profile.token_limit;
    this.temperature = profile.sampling.includes("temperature");
    this.seed = profile.seed;
    this.jsonMode = profile.json_mode;
    this.extraBody = { ...options.extraBody };
    this.#apiVersion = options.apiVersion;
  }

  /** Returns the body of `request` to `model` in the current shape, noted as sent (batch lines). */
  body(
    model: string,
    request: ChatRequest,
    onAdapt?: (adaptation: Adaptation) => void,
  ): Record<string, unknown> {
    const body = this.#build(model, request, onAdapt);
    this.#note(request, body);
    return body;
  }

  /**
   * Learns from a refusal of `body`: returns the adaptation when the 400 names a parameter the body sent that
   * can be changed or left out (the shape is changed); `"outdated"` when the shape no longer sends that
   * parameter so (a refusal of another request changed it after `body` was built: send again, nothing is
   * learned twice); else `undefined` (the error stands). Extra body parameters are never left out: the role
   * asked for them.
   */
  adapt(body: Record<string, unknown>, info: RefusalInfo): RefusalLesson | undefined {
    const parameter = adaptableRefusal(body, info);
    if (parameter === undefined) return undefined;
    if (!this.#sends(parameter)) return "outdated";
    const reason = info.message;
    switch (parameter) {
      case "max_tokens":
      case "max_completion_tokens": {
        // A server refusing both token-limit parameters: the error stands (never switch back and forth).
        const other = parameter === "max_tokens" ? "max_completion_tokens" : "max_tokens";
        if (this.adaptations.some((a) => a.parameter === other)) return undefined;
        this.tokenLimit = other;
        return this.#learn({ parameter, now: other, reason });
      }
      case "temperature":
        this.temperature = false;
        return this.#learn({ parameter, now: "left out (server default)", reason });
      case "seed":
        this.seed = false;
        return this.#learn({ parameter, now: "left out", reason });
      default:
        this.jsonMode = false;
        return this.#learn({ parameter, now: "left out (no JSON mode)", reason });
    }
  }

  /** Runs `send` with the body of `request` in the current shape; notes what was sent once it succeeded. */
  async send<T>(
    model: string,
    request: ChatRequest,
    send: (body: Record<string, unknown>) => Promise<T>,
    onAdapt?: (adaptation: Adaptation) => void,
  ): Promise<T> {
    const body = this.#build(model, request, onAdapt);
    const result = await send(body);
    this.#note(request, body);
    return result;
  }

  /** What the run's manifest records: profile, token-limit parameter, what was sent and left out, changes. */
  record(): RequestShapeRecord {
    return {
      profile: this.profile.match,
      token_limit: this.tokenLimit,
      sent: [...this.#sent].sort(),
      left_out: [...this.#leftOut].sort(),
      ...(Object.keys(this.extraBody).length ? { extra_body: { ...this.extraBody } } : {}),
      ...(this.#apiVersion ? { api_version: this.#apiVersion } : {}),
      ...(this.adaptations.length
        ? { adaptations: this.adaptations.map((a) => `${a.parameter}: ${a.now}`) }
        : {}),
    };
  }

  #build(
    model: string,
    request: ChatRequest,
    onAdapt: ((adaptation: Adaptation) => void) | undefined,
  ): Record<string, unknown> {
    const temperature = request.temperature !== undefined && this.temperature
      ? this.#cap(request.temperature, onAdapt)
      : undefined;
    return {
      model,
      messages: request.messages,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(request.maxTokens !== undefined ? { [this.tokenLimit]: request.maxTokens } : {}),
      ...(request.seed !== undefined && this.seed ? { seed: request.seed } : {}),
      ...(request.jsonMode && this.jsonMode ? { response_format: { type: "json_object" } } : {}),
      ...this.extraBody,
    };
  }

  /** Returns `asked`, or the profile's ceiling when it is above it (told once per value asked). */
  #cap(asked: number, onAdapt: ((adaptation: Adaptation) => void) | undefined): number {
    const ceiling = this.profile.temperature_max;
    if (ceiling === undefined || asked <= ceiling) return asked;
    if (!this.#capped.has(asked)) {
      this.#capped.add(asked);
      const adaptation = this.#learn({
        parameter: "temperature",
        now: `${ceiling} (${asked} asked, capped at the profile's temperature_max)`,
        reason: `the ${this.profile.match} profile takes temperatures up to ${ceiling}`,
      });
      onAdapt?.(adaptation);
    }
    return ceiling;
  }

  /** Notes the parameters `body` carries and those of `request` it left out. */
  #note(request: ChatRequest, body: Record<string, unknown>): void {
    for (const key of Object.keys(body)) if (key !== "model" && key !== "messages") this.#sent.add(key);
    if (request.temperature !== undefined && !("temperature" in body)) this.#leftOut.add("temperature");
    if (request.seed !== undefined && !("seed" in body)) this.#leftOut.add("seed");
    if (request.jsonMode && !("response_format" in body)) this.#leftOut.add("response_format");
  }

  /**
   * Whether the current shape sends `parameter` as a refused body carried it: the token-limit parameter in use,
   * and temperature, seed and JSON mode while they are sent.
   */
  #sends(parameter: AdaptableParameter): boolean {
    switch (parameter) {
      case "max_tokens":
      case "max_completion_tokens":
        return this.tokenLimit === parameter;
      case "temperature":
        return this.temperature;
      case "seed":
        return this.seed;
      case "response_format":
        return this.jsonMode;
    }
  }

  #learn(adaptation: Adaptation): Adaptation {
    this.adaptations.push(adaptation);
    return adaptation;
  }
}
