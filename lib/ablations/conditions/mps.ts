/**
 * `--ablation mps[:ROLE]`: CliMedBench's multi-agent participant: the model generates, a debater role debates,
 * the model reflects and answers.
 * @module
 */
import { ConfigError } from "../../core/errors.ts";
import { mpsSolver } from "../../solvers/mps.ts";
import type { ConditionEntry } from "./types.ts";

/** The multi-agent-participant condition. */
export const MPS: ConditionEntry = {
  name: "mps",
  forms: "mps[:ROLE]",
  usage: () => "mps[:ROLE] (generation, debate by --role ROLE=MODEL (default debater), reflection)",
  parse(text) {
    if (text !== "mps" && !text.startsWith("mps:")) return undefined;
    const debater = text === "mps" ? "debater" : text.slice("mps:".length);
    if (!/^[a-z][a-z0-9_-]*$/.test(debater) || ["model", "judge", "embed", "translator"].includes(debater)) {
      throw new ConfigError(`--ablation ${text}: expected mps or mps:ROLE with a role name such as debater2`);
    }
    return { name: text, kind: "mps", debater };
  },
  needs: [],
  solver: (condition, _task, base) => mpsSolver(base, condition.debater),
  note: (condition, { roleLabel }) =>
    `multi-agent participant: ${roleLabel("model")} generates, ${roleLabel(condition.debater!)} debates, ${
      roleLabel("model")
    } reflects and answers (CliMedBench Algorithm 1)`,
};
