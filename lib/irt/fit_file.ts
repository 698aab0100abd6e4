/**
 * The calibration file `fit.json`: what `irt fit` writes and `irt cat` / `irt subset` read (validated with zod).
 * @module
 */
import { z } from "zod";
import { InputError } from "../core/errors.ts";
import { readTextStrict } from "../core/text_file.ts";
import { parseRecord } from "../core/validate.ts";
import type { Calibration } from "./calibrate.ts";
import type { ItemParams } from "./model.ts";

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
  iterations: z.number().int(),
  max_gradient: z.number().optional(),
  se_method: z.string().optional(),
  priors: z.unknown().optional(),
  quadrature_nodes: z.number().int().optional(),
  ability: z.string().optional(),
  source: z.unknown().optional(),
  warnings: z.array(z.string()).optional(),
  items: z.array(FittedItemSchema).min(1),
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
    iterations: fit.iterations,
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
      };
    }),
    persons: calibration.persons.map((p) => ({
      person: p.person,
      theta: round(p.theta)!,
      se: round(p.se)!,
      ...(p.weight === 1 ? {} : { weight: p.weight }),
    })),
  };
}

/** Reads and validates a `fit.json`. */
export async function readFitFile(path: string): Promise<FitFile> {
  let value: unknown;
  try {
    value = JSON.parse(await readTextStrict(path));
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError({ file: path }, `not JSON (${(err as Error).message})`);
  }
  const file = parseRecord(FitFileSchema, value, path, "fit");
  const seen = new Set<string>();
  for (const [i, item] of file.items.entries()) {
    if (seen.has(item.item)) {
      throw new InputError({ file: path, record: `items[${i}]`, field: "item" }, "duplicate item");
    }
    seen.add(item.item);
  }
  return file;
}

/** The calibrated items by id. */
export function itemParameters(file: FitFile): Map<string, ItemParams> {
  return new Map(file.items.map((it) => [it.item, { a: it.a, b: it.b, c: it.c }]));
}
