/**
 * One calibration as a researcher runs it: screen the data (leave out, and name, the items and examinees that
 * cannot be estimated), check the examinee count against the model (warn, or fall back to a simpler model on
 * request), fit within the caps, flag estimates whose standard errors are beyond a sane bound, then the
 * calibrated examinees' abilities (prior-bound for those with every item right or wrong) and item fit.
 * @module
 */
import { abilities, type AbilityMethod } from "./ability.ts";
import { fitIrt, type FitOptions, type IrtFit } from "./fit.ts";
import { fitFlags, SE_BOUND } from "./item_flags.ts";
import { type ItemFit, itemFit } from "./item_fit.ts";
import { DEFAULT_PRIORS, NO_PRIORS, type Priors } from "./item_terms.ts";
import { IRT_MODELS, type IrtModel, type ItemParams } from "./model.ts";
import { examineeCount, type Responses } from "./responses.ts";
import {
  type ExcludedItem,
  type ExcludedPerson,
  type ExtremePerson,
  nameList,
  screenResponses,
} from "./screen.ts";

/**
 * Rough smallest examinee counts for stable estimates without strong priors (rules of thumb from the IRT
 * literature: about 100 for 1PL, 500 for 2PL, 1,000 for 3PL). Below them the fit warns.
 */
export const MINIMUM_EXAMINEES: Record<IrtModel, number> = { "1pl": 100, "2pl": 500, "3pl": 1000 };

/** Settings of {@linkcode calibrate}. */
export interface CalibrateOptions extends Omit<FitOptions, "priors"> {
  /** Priors; `undefined` = the weak defaults for 3PL and none otherwise. */
  priors?: Priors;
  /** Fall back to the most complex model whose minimum examinee count is met (1PL if none). */
  fallback?: boolean;
  /** Ability estimator for the persons (default EAP). */
  ability?: AbilityMethod;
  /** Names the data in errors (a file, or the run directories). */
  source?: string;
}

/** A calibration with its examinees' abilities and its warnings. */
export interface Calibration {
  /** The fit. */
  fit: IrtFit;
  /** The model asked for (differs from `fit.model` after a fallback). */
  requested: IrtModel;
  /** Warnings for the report (small samples, fallbacks, left-out items and examinees, caps, flagged SEs). */
  warnings: string[];
  /** Calibrated examinees with their abilities (`extreme`: every calibrated item right or wrong, prior-bound). */
  persons: { person: string; theta: number; se: number; weight: number; extreme?: ExtremePerson["score"] }[];
  /** Item fit, in item order. */
  itemFit: ItemFit[];
  /** Per calibrated item, why its estimates are unreliable (`null` when they are fine). */
  flags: (string | null)[];
  /** Items left out of the calibration, and why. */
  excludedItems: ExcludedItem[];
  /** Examinees left out of the calibration, and why. */
  excludedPersons: ExcludedPerson[];
  /** The ability estimator. */
  ability: AbilityMethod;
}

/** The priors a model gets unless told otherwise: the weak defaults for 3PL, none for 1PL and 2PL. */
export function defaultPriors(model: IrtModel): Priors {
  return model === "3pl" ? DEFAULT_PRIORS : NO_PRIORS;
}

/** Calibrates items on the responses. */
export function calibrate(input: Responses, options: CalibrateOptions): Calibration {
  const warnings: string[] = [];
  const { data, excludedItems, excludedPersons, extremePersons } = screenResponses(input, options.source);
  warnings.push(...screeningWarnings(excludedItems, excludedPersons, extremePersons));
  const count = examineeCount(data);
  let model = options.model;
  if (count < MINIMUM_EXAMINEES[model]) {
    const fallback = [...IRT_MODELS].reverse().find((m) => count >= MINIMUM_EXAMINEES[m]) ?? "1pl";
    if (options.fallback && fallback !== model) {
      warnings.push(
        `${count} examinees are too few for ${model.toUpperCase()} (about ${
          MINIMUM_EXAMINEES[model]
        } needed): ` +
          `fell back to ${fallback.toUpperCase()}`,
      );
      model = fallback;
    } else {
      warnings.push(
        `${count} examinees are few for ${model.toUpperCase()} (about ${
          MINIMUM_EXAMINEES[model]
        } needed for ` +
          `stable estimates)${model === "1pl" ? "" : "; --fallback would fit a simpler model"}`,
      );
    }
  }
  const priors = options.priors ?? defaultPriors(model);
  const fit = fitIrt(data, { ...options, model, priors });
  if (!fit.converged) warnings.push(capWarning(fit));
  const flags = fitFlags(fit);
  const flagged = fit.items.flatMap((it, i) => (flags[i] === null ? [] : [`"${it.item}" (${flags[i]})`]));
  if (flagged.length) {
    warnings.push(
      `${flagged.length} item(s) with a standard error beyond the sane bound (SE > ${SE_BOUND.a} for a or b, ` +
        `> ${SE_BOUND.c} for c, or none), flagged in items.csv and fit.json: ${
          flagged.slice(0, 10).join(", ")
        }` +
        (flagged.length > 10 ? ` and ${flagged.length - 10} more` : ""),
    );
  }
  const params = new Map<string, ItemParams>(fit.items.map((it) => [it.item, it]));
  const method = options.ability ?? "eap";
  const thetas = abilities(data, params, method);
  const perItem = model === "3pl" ? 3 : model === "2pl" ? 2 : 1;
  const extreme = new Map(extremePersons.map((x) => [x.person, x.score]));
  return {
    fit,
    requested: options.model,
    warnings,
    persons: data.persons.map((person, p) => ({
      person,
      ...thetas[p],
      weight: data.weights[p],
      ...(extreme.has(person) ? { extreme: extreme.get(person) } : {}),
    })),
    itemFit: itemFit(data, fit.items, thetas.map((t) => t.theta), perItem),
    flags,
    excludedItems,
    excludedPersons,
    ability: method,
  };
}

/** The warning of a fit stopped by a cap, naming the cap. */
function capWarning(fit: IrtFit): string {
  const cap = fit.stoppedBy === "max-seconds"
    ? `the time cap (${fit.caps.seconds} s, --max-seconds) after ${fit.iterations} cycles`
    : `the cycle cap (${fit.caps.cycles} cycles, --max-cycles)`;
  return `EM did not converge: stopped at ${cap}, last parameter change ${
    fit.lastChange.toExponential(2)
  }; ` +
    "the estimates are where it stopped";
}

/** The warnings naming what screening left out or found extreme (every name is in fit.json). */
function screeningWarnings(
  items: readonly ExcludedItem[],
  persons: readonly ExcludedPerson[],
  extreme: readonly ExtremePerson[],
): string[] {
  const warnings: string[] = [];
  const reasons = [...new Set(items.map((x) => x.reason))];
  for (const reason of reasons) {
    const names = items.filter((x) => x.reason === reason).map((x) => x.item);
    warnings.push(
      `${names.length} item(s) ${
        reason === "fewer than 2 responses" ? "with fewer than 2 responses" : reason
      } ` +
        `left out of the calibration (no finite estimate): ${nameList(names, 20)}`,
    );
  }
  for (const reason of [...new Set(persons.map((x) => x.reason))]) {
    const names = persons.filter((x) => x.reason === reason).map((x) => x.person);
    warnings.push(`${names.length} examinee(s) left out (${reason}): ${nameList(names, 20)}`);
  }
  for (const score of ["all right", "all wrong"] as const) {
    const rows = extreme.filter((x) => x.score === score);
    if (!rows.length) continue;
    const count = rows.reduce((s, x) => s + x.weight, 0);
    const patterns = rows.length === count ? "" : ` (${rows.length} response pattern(s))`;
    warnings.push(
      `${count} examinee(s)${patterns} answered every calibrated item ${score.slice(4)}: kept in the ` +
        `calibration (the N(0, 1) ability distribution bounds them); their abilities are prior-bound: ` +
        nameList(rows.map((x) => x.person), 20),
    );
  }
  return warnings;
}
