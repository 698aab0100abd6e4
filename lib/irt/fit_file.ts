/**
 * The calibration file `fit.json`: what `irt fit` writes (its schema in zod); `irt cat` and `irt subset` read its
 * items as an item bank ({@link ./item_bank.ts}).
 * @module
 */
import { z } from "zod";
import type { Calibration } from "./calibrate.ts";

const nullableNumber = z.number().nullable();

/** Schema of one item in `fit.json`. */
export const FittedItemSchema = z.object({
  item: z.string().min(1),
  a: z.number(),
  b: z.number(),
  c: z.number().min(0).max(1),
  se_a: nullableNumber,
  se_b: nullableNumber,
  se_c: nullableNumber,
  d: z.number().optional(),
  se_d: nullableNumber.optional(),
  n: z.number().optional(),
  p_correct: nullableNumber.optional(),
  infit: nullableNumber.optional(),
  outfit: nullableNumber.optional(),
  q1: nullableNumber.optional(),
  q1_df: nullableNumber.optional(),
  q1_p: nullableNumber.optional(),
  flag: z.string().nullable().optional(),
});

/** Schema of `fit.json`. */
export const FitFileSchema = z.object({
  model: z.enum(["1pl", "2pl", "3pl"]),
  requested_model: z.enum(["1pl", "2pl", "3pl"]).optional(),
  n_persons: z.number(),
  n_items: z.number().int(),
  logLik: z.number(),
  log_posterior: z.number().optional(),
  converged: z.boolean(),
  stopped_by: z.enum(["converged", "max-cycles", "max-seconds"]).optional(),
  caps: z.object({ cycles: z.number(), seconds: z.number() }).optional(),
  seconds: z.number().optional(),
  iterations: z.number().int(),
  e_steps: z.number().int().optional(),
  acceleration: z.enum(["squarem", "none"]).optional(),
  max_gradient: z.number().optional(),
  se_method: z.string().optional(),
  priors: z.unknown().optional(),
  quadrature_nodes: z.number().int().optional(),
  ability: z.string().optional(),
  source: z.unknown().optional(),
  warnings: z.array(z.string()).optional(),
  items: z.array(FittedItemSchema).min(1),
  excluded_items: z.array(
    z.object({ item: z.string(), reason: z.string(), n: z.number(), right: z.number() }),
  ).optional(),
  excluded_persons: z.array(z.object({ person: z.string(), reason: z.string() })).optional(),
  persons: z.array(z.object({ person: z.string(), theta: z.number(), se: z.number() }).passthrough()),
});

/** The contents of `fit.json`. */
export type FitFile = z.infer<typeof FitFileSchema>;

const round = (
  x: number | null,
  digits = 6,
) => (x === null || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));

/** Builds the `fit.json` document of a calibration; `source` records where the responses came from. */
export function fitFile(calibration: Calibration, source: Record<string, unknown>): FitFile {
  const { fit } = calibration;
  return {
    model: fit.model,
    requested_model: calibration.requested,
    n_persons: fit.nPersons,
    n_items: fit.nItems,
    logLik: round(fit.logLik)!,
    log_posterior: round(fit.logPosterior)!,
    converged: fit.converged,
    stopped_by: fit.stoppedBy,
    caps: fit.caps,
    seconds: round(fit.seconds, 3)!,
    iterations: fit.iterations,
    e_steps: fit.eSteps,
    acceleration: fit.acceleration,
    max_gradient: fit.maxGradient,
    se_method: fit.seMethod,
    priors: fit.priors,
    quadrature_nodes: fit.nodes,
    ability: calibration.ability,
    source,
    warnings: calibration.warnings,
    items: fit.items.map((it, i) => {
      const f = calibration.itemFit[i];
      return {
        item: it.item,
        a: round(it.a)!,
        b: round(it.b)!,
        c: round(it.c)!,
        se_a: round(it.se_a),
        se_b: round(it.se_b),
        se_c: round(it.se_c),
        d: round(it.d)!,
        se_d: round(it.se_d),
        n: round(it.n, 3)!,
        p_correct: round(it.p_correct, 4),
        infit: round(f.infit, 4),
        outfit: round(f.outfit, 4),
        q1: round(f.q1, 4),
        q1_df: f.df,
        q1_p: round(f.p, 4),
        flag: calibration.flags[i],
      };
    }),
    excluded_items: calibration.excludedItems.map((x) => ({
      ...x,
      n: round(x.n, 3)!,
      right: round(x.right, 3)!,
    })),
    excluded_persons: calibration.excludedPersons,
    persons: calibration.persons.map((p) => ({
      person: p.person,
      theta: round(p.theta)!,
      se: round(p.se)!,
      ...(p.weight === 1 ? {} : { weight: p.weight }),
      ...(p.extreme ? { extreme: p.extreme } : {}),
    })),
  };
}
