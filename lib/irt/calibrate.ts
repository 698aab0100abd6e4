/**
 * One calibration as a researcher runs it: drop empty rows and columns, check the examinee count against the
 * model (warn, or fall back to a simpler model on request), fit, then abilities and item fit.
 * @module
 */
import { abilities, type AbilityMethod } from "./ability.ts";
import { fitIrt, type FitOptions, type IrtFit } from "./fit.ts";
import { type ItemFit, itemFit } from "./item_fit.ts";
import { DEFAULT_PRIORS, NO_PRIORS, type Priors } from "./item_terms.ts";
import { IRT_MODELS, type IrtModel, type ItemParams } from "./model.ts";
import { dropEmpty, examineeCount, type Responses } from "./responses.ts";

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
}

/** A calibration with its examinees' abilities and its warnings. */
export interface Calibration {
  /** The fit. */
  fit: IrtFit;
  /** The model asked for (differs from `fit.model` after a fallback). */
  requested: IrtModel;
  /** Warnings for the report (small samples, fallbacks, dropped rows, non-convergence). */
  warnings: string[];
  /** Examinees with their abilities. */
  persons: { person: string; theta: number; se: number; weight: number }[];
  /** Item fit, in item order. */
  itemFit: ItemFit[];
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
  const { data, droppedItems, droppedPersons } = dropEmpty(input);
  if (droppedItems.length) warnings.push(`${droppedItems.length} item(s) without any response left out`);
  if (droppedPersons.length) {
    warnings.push(`${droppedPersons.length} examinee(s) without any response left out`);
  }
  if (data.items.length < 2) throw new RangeError("calibration needs at least two items with responses");
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
  if (!fit.converged) {
    warnings.push(
      `EM did not converge in ${fit.iterations} cycles (last change ${fit.lastChange.toExponential(2)})`,
    );
  }
  const params = new Map<string, ItemParams>(fit.items.map((it) => [it.item, it]));
  const method = options.ability ?? "eap";
  const thetas = abilities(data, params, method);
  const perItem = model === "3pl" ? 3 : model === "2pl" ? 2 : 1;
  return {
    fit,
    requested: options.model,
    warnings,
    persons: data.persons.map((person, p) => ({ person, ...thetas[p], weight: data.weights[p] })),
    itemFit: itemFit(data, fit.items, thetas.map((t) => t.theta), perItem),
    ability: method,
  };
}
