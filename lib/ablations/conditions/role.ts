/**
 * `--ablation role`: each sample answered by the chat solver with a persona chosen from one of its fields
 * through the task's role table (`Task.roleTable`).
 * @module
 */
import { chatSolver } from "../../solvers/chat.ts";
import { ROLE_PLACEHOLDER, roleSolver } from "../../solvers/role.ts";
import { ROLE_TABLE } from "./needs.ts";
import type { ConditionEntry } from "./types.ts";

/** The role-prompting condition. */
export const ROLE: ConditionEntry = {
  name: "role",
  forms: "role",
  usage: () => "role (system role per sample from the benchmark's role table)",
  parse: (text) => text === "role" ? { name: "role", kind: "role" } : undefined,
  needs: [ROLE_TABLE],
  solver(_condition, task) {
    const table = task.roleTable!;
    return roleSolver({
      ...table,
      solver: (role) => chatSolver(table.system.replace(ROLE_PLACEHOLDER, role)),
    });
  },
  note: (_condition, { task }) =>
    `role prompting: system role chosen by ${task.roleTable!.field} through ${
      task.roleTable!.source
    } (fallback: ${task.roleTable!.fallback})`,
};
