/**
 * Extra body parameters: what `--role-opt NAME.KEY=VALUE` sends for a key that is not a role key (e.g.
 * `reasoning_effort`, `top_k`, `chat_template_kwargs`). Their values as the command line gives them, and the
 * check, before anything is sent, that the role's model takes them: its profile lists them in `extra_body` (the
 * default profile, for local servers, takes any), and none is a field the request shape sets itself.
 * @module
 */
import { ConfigError } from "../../core/errors.ts";
import { type ModelProfile, takesExtra } from "./profiles.ts";

/** Body fields the request shape or the caller sets, never extra parameters: why, for `flag` (`--role-opt judge`). */
const SHAPED_FIELDS: Readonly<Record<string, (flag: string) => string>> = {
  model: () => "it is the role's model",
  messages: () => "it is the prompt",
  max_tokens: (flag) => `set the limit with ${flag}.max-tokens`,
  max_completion_tokens: (flag) => `set the limit with ${flag}.max-tokens`,
  temperature: (flag) => `set it with ${flag}.temperature`,
  seed: (flag) => `set it with ${flag}.seed`,
  response_format: () => "JSON mode is asked for by the scorer and sent as the model's profile allows",
  stream: () => "answers are read whole",
  stream_options: () => "answers are read whole",
  n: () => "each call asks for one answer (repeats are calls of their own)",
};

/**
 * Returns the value of an extra parameter as written: JSON when it reads as JSON (`20` a number, `true` a
 * boolean, `{"enable_thinking":false}` an object, `"20"` a string), else the text itself (`low`). A value that
 * starts like a JSON object, array or string but is not valid JSON is a {@linkcode ConfigError} naming `source`.
 */
export function parseExtraValue(raw: string, source: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    if (/^\s*[[{"]/.test(raw)) throw new ConfigError(`${source}: "${raw}" is not valid JSON`);
    return raw;
  }
}

/** What {@linkcode checkExtraBody} names in its errors. */
export interface ExtraBodyOwner {
  /** The role, e.g. `judge`. */
  role: string;
  /** The model serving it. */
  model: string;
  /** The flag that set the parameters, without the key (e.g. `--role-opt judge`). */
  flag: string;
}

/**
 * Refuses, with one line naming the flag, role, parameter, model and profile pattern, an extra parameter the
 * shape sets itself or that `profile` does not list in `extra_body`.
 */
export function checkExtraBody(
  extraBody: Readonly<Record<string, unknown>>,
  profile: ModelProfile,
  owner: ExtraBodyOwner,
): void {
  for (const name of Object.keys(extraBody)) {
    const source = `${owner.flag}.${name}`;
    const shaped = SHAPED_FIELDS[name];
    if (shaped !== undefined) {
      throw new ConfigError(`${source}: ${name} is not an extra body parameter (${shaped(owner.flag)})`);
    }
    if (!takesExtra(profile, name)) {
      const listed = profile.extra_body?.length ? profile.extra_body.join(", ") : "none";
      throw new ConfigError(
        `${source}: the ${owner.role} model "${owner.model}" (profile ${profile.match}) takes no extra body ` +
          `parameter ${name} (its extra_body: ${listed}; a --profiles file can list it)`,
      );
    }
  }
}
