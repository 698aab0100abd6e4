/**
 * Offline baselines that answer without any model, so pipelines run with no server at all. Their results are
 * labelled `offline` everywhere; they are sanity checks and floors, not model results.
 * @module
 */
import type { Sample } from "../../core/sample.ts";
import { wordTokens } from "../../text/tokenize.ts";
import { OfflineProvider } from "./offline_provider.ts";
import type { ChatRequest, ChatResponse } from "../types.ts";

/** Answers every question with its own reference answer: a ceiling that checks the judging pipeline. */
export class ReferenceProvider extends OfflineProvider {
  /** `offline:reference`. */
  override readonly model = "offline:reference";
  /** Label shown in tables. */
  override readonly label = "reference answer (offline ceiling)";

  /** Returns the request's sample reference (empty text when the sample has none). */
  protected answer(request: ChatRequest): ChatResponse {
    return { text: this.sampleOf(request).reference ?? "", finishReason: "stop" };
  }
}

/**
 * Answers each question with the question itself (`offline:echo`): a floor for data without reference answers
 * (MedGPTEval), which the offline judges and the robustness stand-ins can still tell apart.
 */
export class EchoProvider extends OfflineProvider {
  /** `offline:echo`. */
  override readonly model = "offline:echo";
  /** Label shown in tables. */
  override readonly label = "echo of the question (offline floor)";

  /** Returns the request's sample input. */
  protected answer(request: ChatRequest): ChatResponse {
    return { text: this.sampleOf(request).input, finishReason: "stop" };
  }
}

/** The BM25 index of a corpus's reference answers, and how a question is matched against it. */
interface RetrievalIndex {
  docs: { sample: Sample; bow: Record<string, number> }[];
  /** The bag of words of a question, weighted as the index weighs its documents. */
  bowOf(tokens: string[]): Record<string, number>;
  /** Cosine similarity of two bags of words. */
  cosine(a: Record<string, number>, b: Record<string, number>): number;
}

/**
 * What is used of wink-nlp's BM25 vectorizer: the type its JavaScript gives the factory's result is
 * `undefined` when the package's declarations are not picked up (they name the module without `.js`).
 */
interface Bm25Vectorizer {
  learn(tokens: string[]): void;
  doc(i: number): { out(as: unknown): unknown };
  bowOf(tokens: string[]): unknown;
}

/** Loads wink-nlp (only a run of `offline:retrieval` needs it) and indexes the references of `corpus`. */
async function buildRetrievalIndex(corpus: readonly Sample[]): Promise<RetrievalIndex> {
  const [{ default: BM25Vectorizer }, { default: its }, { default: similarity }] = await Promise.all([
    import("wink-nlp/utilities/bm25-vectorizer.js"),
    import("wink-nlp/src/its.js"),
    import("wink-nlp/utilities/similarity.js"),
  ]);
  const bm25 = BM25Vectorizer({ norm: "l2" }) as unknown as Bm25Vectorizer;
  const indexed = corpus.filter((s) => s.reference && wordTokens(s.reference).length > 0);
  for (const sample of indexed) bm25.learn(wordTokens(sample.reference!));
  return {
    docs: indexed.map((sample, i) => ({ sample, bow: bm25.doc(i).out(its.bow) as Record<string, number> })),
    bowOf: (tokens) => bm25.bowOf(tokens) as Record<string, number>,
    cosine: (a, b) => similarity.bow.cosine(a, b),
  };
}

/**
 * Answers each question with the reference answer of another question that is most similar to it under BM25
 * (wink-nlp, ICU word tokens): a retrieval floor. The question's own conversation is excluded. The index is
 * built on the first question.
 */
export class RetrievalProvider extends OfflineProvider {
  /** `offline:retrieval`. */
  override readonly model = "offline:retrieval";
  /** Label shown in tables. */
  override readonly label = "BM25 retrieval of another question's reference (offline baseline)";
  readonly #corpus: readonly Sample[];
  #loading: Promise<RetrievalIndex> | undefined;
  #index: RetrievalIndex | undefined;

  /** Keeps `corpus`, whose reference answers (samples without one are skipped) are indexed on first use. */
  constructor(corpus: readonly Sample[]) {
    super();
    this.#corpus = corpus;
  }

  /** Builds the index once, then answers. */
  override async complete(request: ChatRequest): Promise<ChatResponse> {
    this.#index ??= await (this.#loading ??= buildRetrievalIndex(this.#corpus));
    return super.complete(request);
  }

  /** Returns the best-matching reference of another conversation (ties: first in corpus order). */
  protected answer(request: ChatRequest): ChatResponse {
    const sample = this.sampleOf(request);
    const index = this.#index;
    if (!index) throw new Error("internal: the retrieval index is built by complete()");
    // A data set without reference answers has nothing to retrieve: the floor is an empty answer.
    if (index.docs.length === 0) return { text: "", finishReason: "stop" };
    const query = index.bowOf(wordTokens(sample.input));
    const own = sample.conversation?.id;
    let best: { score: number; text: string } = { score: -1, text: "" };
    for (const doc of index.docs) {
      if (doc.sample.id === sample.id || (own && doc.sample.conversation?.id === own)) continue;
      const score = index.cosine(query, doc.bow);
      if (score > best.score) best = { score, text: doc.sample.reference ?? "" };
    }
    return { text: best.text, finishReason: "stop" };
  }
}

/**
 * A translator stand-in that returns the text unchanged (`offline:identity`): it runs the pivot-translation
 * pipeline end to end without a translator model, and translates nothing. Results are labelled offline.
 */
export class IdentityTranslatorProvider extends OfflineProvider {
  /** `offline:identity`. */
  override readonly model = "offline:identity";
  /** Label shown in tables. */
  override readonly label = "offline:identity (returns the text untranslated)";

  /** Returns the last user message unchanged. */
  protected answer(request: ChatRequest): ChatResponse {
    const last = request.messages.findLast((m) => m.role === "user");
    return { text: last?.content ?? "", finishReason: "stop" };
  }
}
