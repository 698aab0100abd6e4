/**
 * Role prompting (`--ablation role`): each sample is put to the model by the task's solver with a persona
 * chosen from one of the sample's fields through the task's role table (PerMedCQA: ICD-11 chapter →
 * specialist). The chosen role is recorded with the output.
 * @module
 */
import type { Sample } from "../core/sample.ts";
import type { RoleTable, Solver } from "../core/task.ts";

/** A role table with the solver that puts a role to the model as its persona. */
export interface RolePrompting extends Omit<RoleTable, "system"> {
  /** The solver with `role` as its persona. */
  solver(role: string): Solver;
}

/** Placeholder standing for the role in the templates recorded in the manifest. */
export const ROLE_PLACEHOLDER = "{role}";

/** Returns the role `spec` gives `sample`: its field's entry in the table, else the fallback. */
export function roleOf(spec: Pick<RoleTable, "field" | "roles" | "fallback">, sample: Sample): string {
  const value = sample.fields[spec.field];
  if (value === null || value === undefined) return spec.fallback;
  return spec.roles[String(value)] ?? spec.fallback;
}

/** Returns a solver that answers each sample with the persona its field selects. */
export function roleSolver(spec: RolePrompting): Solver {
  const template = spec.solver(ROLE_PLACEHOLDER);
  const solvers = new Map<string, Solver>();
  const solverFor = (role: string) => {
    let solver = solvers.get(role);
    if (!solver) solvers.set(role, solver = spec.solver(role));
    return solver;
  };
  return {
    name: `role:${spec.field}(${template.name})`,
    templates: {
      ...template.templates,
      role_table: JSON.stringify({ fallback: spec.fallback, ...spec.roles }),
    },
    roles: template.roles,
    auxiliary: template.auxiliary,
    async solve(state, ctx) {
      const role = roleOf(spec, state.sample);
      const result = await solverFor(role).solve(state, ctx);
      return { ...result, detail: { ...result.detail, role } };
    },
  };
}
