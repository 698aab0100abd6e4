/**
 * MedGPTEval robustness sets at the paper's size and beyond: the programmatic sets C–E (punctuation, grammar,
 * spelling errors) made from 27 first-round questions × 10 variants, and the design-effect-adjusted rates over
 * 1,000 questions × 10 variants.
 */
import { robustnessSamples } from "../lib/robustness/sets.ts";
import { loadMedGptEval } from "../lib/benchmarks/medgpteval/load.ts";
import { clusteredRate } from "../lib/stats/clustered.ts";
import { mulberry32 } from "../lib/stats/rng.ts";
import { loadCharacterTables } from "../lib/ablations/perturb.ts";

// Perturbations read the pinyin and traditional-form tables, loaded on demand.
await loadCharacterTables();

const firstRounds = (await loadMedGptEval(new URL("../data/medgpteval", import.meta.url).pathname))
  .filter((s) => s.fields.kind === "dialogue" && s.fields.round === 1);
// The paper's 27 dialogues: the sample's 6 first rounds repeated under other ids.
const sources = Array.from(
  { length: 27 },
  (_, i) => ({ ...firstRounds[i % firstRounds.length], id: `q${i}` }),
);

Deno.bench("robustness sets C-E: 27 questions x 3 sets x 10 variants (810 variants)", () => {
  robustnessSamples(sources, { sets: ["C", "D", "E"], variants: 10, seed: "0" });
});

const random = mulberry32(7);
const clusters = Array.from({ length: 1000 }, () => {
  const p = random();
  return Array.from({ length: 10 }, () => (random() < p ? 1 : 0));
});

Deno.bench("clustered rate (ANOVA ICC, deff, Wilson): 1,000 questions x 10 variants", () => {
  clusteredRate(clusters);
});
