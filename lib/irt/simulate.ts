/**
 * The project's own seeded generator of IRT data, for parameter-recovery checks and CAT simulations:
 * item parameters, abilities and responses drawn from the model.
 * @module
 */
import { mulberry32, seedFrom } from "../stats/rng.ts";
import { type IrtModel, type ItemParams, probability } from "./model.ts";
import type { Responses } from "./responses.ts";

/** Returns a standard normal generator (Box–Muller) driven by a uniform one. */
export function normalFrom(uniform: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const value = spare;
      spare = null;
      return value;
    }
    let u = 0;
    while (u === 0) u = uniform();
    const radius = Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * uniform();
    spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  };
}

/**
 * Draws `count` items: log a ~ N(0, 0.3²) (one common a for 1PL), b ~ N(0, 1), c ~ U(0.1, 0.3) for 3PL
 * (0 otherwise).
 */
export function simulateItems(count: number, model: IrtModel, seed: string): ItemParams[] {
  const uniform = mulberry32(seedFrom(`items:${seed}`));
  const normal = normalFrom(uniform);
  const common = Math.exp(0.3 * normal());
  return Array.from({ length: count }, () => ({
    a: model === "1pl" ? common : Math.exp(0.3 * normal()),
    b: normal(),
    c: model === "3pl" ? 0.1 + 0.2 * uniform() : 0,
  }));
}

/** Draws `count` abilities from N(0, 1). */
export function simulateAbilities(count: number, seed: string): number[] {
  const normal = normalFrom(mulberry32(seedFrom(`abilities:${seed}`)));
  return Array.from({ length: count }, () => normal());
}

/** Draws responses of examinees with abilities `thetas` to `items`; `missing` is the chance a cell is left out. */
export function simulateResponses(
  items: readonly ItemParams[],
  thetas: readonly number[],
  seed: string,
  missing = 0,
): Responses {
  const uniform = mulberry32(seedFrom(`responses:${seed}`));
  const values = thetas.map((theta) =>
    items.map((item): 0 | 1 | null => {
      const right: 0 | 1 = uniform() < probability(item, theta) ? 1 : 0;
      return missing > 0 && uniform() < missing ? null : right;
    })
  );
  return {
    persons: thetas.map((_, p) => `sim${String(p + 1).padStart(String(thetas.length).length, "0")}`),
    items: items.map((_, i) => `item${String(i + 1).padStart(String(items.length).length, "0")}`),
    values,
    weights: thetas.map(() => 1),
  };
}
