/**
 * An offline stand-in registered by name (`offline:*`): the role it serves, what it is, and how to build it.
 * The generic stand-ins live here; a benchmark (or robustness) that brings its own declares it beside its
 * code, and the pipeline hands the registered ones to the provider factory, which imports no benchmark.
 * @module
 */
import type { Sample } from "../../core/sample.ts";
import type { ChatProvider } from "../types.ts";
import { EchoProvider, IdentityTranslatorProvider, ReferenceProvider, RetrievalProvider } from "./offline.ts";
import { OverlapJudgeProvider } from "./overlap_judge.ts";

/** One offline stand-in. */
export interface OfflineStandIn {
  /** The role it serves: `model`, `judge`, or another role such as `translator` or `rephraser`. */
  readonly role: string;
  /** What it is, for errors and reproduction notes. */
  readonly description: string;
  /** Returns a new provider; `corpus` is the run's samples (the retrieval baseline's pool). */
  create(corpus: readonly Sample[]): ChatProvider;
}

/** Offline stand-ins by `offline:*` name. */
export type OfflineStandIns = Readonly<Record<string, OfflineStandIn>>;

/** The stand-ins every benchmark may use, by name. */
export const GENERIC_STAND_INS: OfflineStandIns = {
  "offline:reference": {
    role: "model",
    description: "answers with the question's own reference answer (ceiling / judge sanity check)",
    create: () => new ReferenceProvider(),
  },
  "offline:retrieval": {
    role: "model",
    description: "answers with the BM25-nearest reference answer of another question (floor)",
    create: (corpus) => new RetrievalProvider(corpus),
  },
  "offline:echo": {
    role: "model",
    description: "answers with the question itself (floor for data without reference answers)",
    create: () => new EchoProvider(),
  },
  "offline:overlap": {
    role: "judge",
    description: "lexical bigram F1 against the reference mapped onto 1-5 (smoke test, not an LLM judge)",
    create: () => new OverlapJudgeProvider(),
  },
  "offline:identity": {
    role: "translator",
    description: "returns the text untranslated (runs the pivot pipeline; translates nothing)",
    create: () => new IdentityTranslatorProvider(),
  },
};

/** Returns the names and descriptions of the stand-ins of `standIns` that serve `role`, in their order. */
export function standInsFor(standIns: OfflineStandIns, role: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(standIns).filter(([, s]) => s.role === role).map(([name, s]) => [name, s.description]),
  );
}

/** Returns, by role, the stand-ins of `standIns` serving roles other than `model` and `judge`. */
export function standInsByRole(standIns: OfflineStandIns): Record<string, Record<string, string>> {
  const roles = new Set(
    Object.values(standIns).map((s) => s.role).filter((r) => r !== "model" && r !== "judge"),
  );
  return Object.fromEntries([...roles].map((role) => [role, standInsFor(standIns, role)]));
}
