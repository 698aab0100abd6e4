/**
 * The shape of the requests sent to one model: its profile's token-limit parameter and allowed parameters (a
 * temperature above the profile's ceiling capped), the role's extra body parameters, adapted once when the
 * server answers the documented 400 for an unsupported parameter or value (and kept for the rest of the run).
 * A shape not yet seen to succeed is sent by one request at a time, so a shape the server refuses is sent once,
 * never by every request in flight. It notes what it sent, for the run's manifest.
 * @module
 */
import type { Adaptation, ChatRequest, RefusalInfo, RequestShaper, RequestShapeRecord } from "../types.ts";
import { DEFAULT_PROFILE, type ModelProfile } from "./profiles.ts";

/** The body fields a server may refuse and the shape can change: requests with none of them are never held. */
const ADAPTABLE = ["max_tokens", "max_completion_tokens", "temperature", "seed", "response_format"];

/** What a shape adds to its profile: the role's extra body parameters and the endpoint's API version. */
export interface RequestShapeOptions {
  /** Extra body parameters sent with every request (checked against the profile before). */
  extraBody?: Readonly<Record<string, unknown>>;
  /** Azure OpenAI's `api-version` of the endpoints (recorded; the client sends it). */
  apiVersion?: string;
}

/** Returns the parameter a 400 names as unsupported (its `param`, else the quoted name in its message). */
function refusedParameter(info: RefusalInfo): string | undefined {
  if (info.status !== 400) return undefined;
  const documented = info.code === "unsupported_parameter" || info.code === "unsupported_value";
  if (documented && info.param) return info.param;
  return info.message.match(/Unsupported (?:parameter|value): '([a-z_]+)'/)?.[1];
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
  /** Parameter sets (by their names) some request has succeeded with. */
  readonly #proven = new Set<string>();
  /** The request trying a parameter set not yet proven, by set. */
  readonly #probes = new Map<string, Promise<unknown>>();
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
   * can be changed or left out (the shape is changed), else `undefined` (the error stands). Extra body
   * parameters are never left out: the role asked for them.
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
   * a server may refuse or a request with the same parameters has succeeded, else after any other request trying
   * the same parameters has finished (so a shape the server refuses is sent once); the body is built again after
   * each wait, as the shape may have changed. `onAdapt` is told of a temperature capped by the profile.
   */
  async send<T>(
    model: string,
    request: ChatRequest,
    send: (body: Record<string, unknown>) => Promise<T>,
    onAdapt?: (adaptation: Adaptation) => void,
  ): Promise<T> {
    for (;;) {
      const body = this.#build(model, request, onAdapt);
      const set = Object.keys(body).sort().join(",");
      const pending = this.#probes.get(set);
      if (pending) {
        await pending.catch(() => {});
        continue;
      }
      const probing = !this.#proven.has(set) && ADAPTABLE.some((key) => key in body);
      const sending = send(body);
      if (probing) this.#probes.set(set, sending);
      try {
        const result = await sending;
        this.#proven.add(set);
        this.#note(request, body);
        return result;
      } finally {
        if (probing) this.#probes.delete(set);
      }
    }
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

  #learn(adaptation: Adaptation): Adaptation {
    this.adaptations.push(adaptation);
    return adaptation;
  }
}
