/**
 * LLMEval-Med's role table for role prompting (`--ablation role`): a physician role per category, read from
 * `data/llmeval_med/roles.json`, and the persona that puts it in the system message.
 * @module
 */
import { z } from "zod";
import { projectPath } from "../../core/fs.ts";
import type { RoleTable } from "../../core/task.ts";
import { readTextStrict } from "../../core/text_file.ts";
import { parseRecord } from "../../core/validate.ts";
import { ANSWER_SYSTEM_PROMPT } from "./prompts.ts";
import { CATEGORY_CODES } from "./schema.ts";

/** Path of the role table, relative to the project root. */
export const ROLE_TABLE = "data/llmeval_med/roles.json";

/** The role of questions outside the table. */
export const FALLBACK_ROLE = "physician";

/**
 * The persona; `{role}` is the role. It is the baseline's system prompt with the role added, so the ablation
 * changes nothing but the role.
 */
export const ROLE_PERSONA_TEMPLATE = `${ANSWER_SYSTEM_PROMPT.replace(/\.$/, "")} and an experienced {role}.`;

const RoleTableSchema = z.object(Object.fromEntries(CATEGORY_CODES.map((c) => [c, z.string().min(1)])));

/** Returns LLMEval-Med's role table, read and validated (every category needs a role). */
export async function llmEvalMedRoleTable(): Promise<RoleTable> {
  const text = await readTextStrict(projectPath(ROLE_TABLE));
  const roles = parseRecord(RoleTableSchema, JSON.parse(text), ROLE_TABLE, "table") as Record<string, string>;
  return {
    field: "category",
    roles,
    fallback: FALLBACK_ROLE,
    source: ROLE_TABLE,
    system: ROLE_PERSONA_TEMPLATE,
  };
}
