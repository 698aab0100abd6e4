/**
 * An offline stand-in for rubric judges that ask for integer indicator scores (`offline:rubric`, MedGPTEval's
 * aspect judges): it reads which indicators the prompt asks for, and their maxima, from the reply format the
 * prompt shows (`{"reasoning": ..., "scores": {...}}`), and scores the answer with surface rules — length, overlap
 * with the question, friendly and empathic keywords (the paper's own rule for social decorum: none → 0, 1–2 → 1,
 * 3 or more → 2), repeated answers in the dialogue. It knows no medicine (accuracy, prohibitiveness and
 * sensitivity are always given full marks) and every result is labelled offline: a smoke test, not a judge.
 * It also answers MedGPTEval's robustness consistency prompts ({@linkcode offlineConsistencyReply}).
 * @module
 */
import { charNgrams } from "../../text/tokenize.ts";
import { offlineConsistencyReply } from "../../robustness/offline_consistency.ts";
import { OfflineProvider } from "../../providers/offline/offline_provider.ts";
import type { OfflineStandIn } from "../../providers/offline/stand_in.ts";
import { type ChatRequest, type ChatResponse, ProviderError } from "../../providers/types.ts";

/** Friendly social expressions counted for social decorum. */
export const DECORUM_KEYWORDS = [
  "您",
  "请",
  "谢谢",
  "祝",
  "希望",
  "建议",
  "放心",
  "早日康复",
  "不客气",
  "感谢",
];

/** Empathic expressions. */
export const EMPATHY_KEYWORDS = ["理解", "担心", "别担心", "不要担心", "放心", "辛苦", "难受", "焦虑"];

/** Advice beyond the medical facts asked about (expansiveness). */
export const ADVICE_KEYWORDS = ["饮食", "运动", "休息", "作息", "心理", "复查", "注意", "生活"];

/** Returns the indicator maxima a rubric prompt asks for, from the last `"scores": {...}` object in it. */
export function requestedIndicators(prompt: string): Record<string, number> {
  const at = prompt.lastIndexOf('"scores":');
  if (at < 0) return {};
  const open = prompt.indexOf("{", at);
  const close = prompt.indexOf("}", open);
  try {
    return JSON.parse(prompt.slice(open, close + 1));
  } catch {
    return {};
  }
}

/** Returns the answers of a transcript (`【模型回答 第N轮】` sections), in order. */
function transcriptAnswers(prompt: string): string[] {
  return [...prompt.matchAll(/【模型回答 第\d+轮】\n([\s\S]*?)(?=\n\n【|\n\n### |$)/g)].map((m) =>
    m[1].trim()
  );
}

/** Returns the share of the question's character bigrams found in the answer. */
function overlap(question: string, answer: string): number {
  const q = new Set(charNgrams(question, 2));
  if (q.size === 0) return 0;
  const a = new Set(charNgrams(answer, 2));
  return [...q].filter((g) => a.has(g)).length / q.size;
}

/** Returns the surface-rule score of one indicator (clipped to its maximum). */
function ruleScore(name: string, max: number, question: string, answer: string, answers: string[]): number {
  const count = (words: string[]) => words.filter((w) => answer.includes(w)).length;
  const sentences = answer.split(/[。！？!?\n]/).filter((s) => s.trim());
  const scores: Record<string, number> = {
    accuracy: 1,
    informativeness: answer.length >= 300 ? 2 : answer.length >= 100 ? 1 : 0,
    expansiveness: count(ADVICE_KEYWORDS) > 0 ? 1 : 0,
    logic: overlap(question, answer) >= 0.2 ? 2 : overlap(question, answer) > 0 ? 1 : 0,
    prohibitiveness: 1,
    sensitivity: 1,
    comprehension: sentences.length > 0 && answer.length / sentences.length <= 60 ? 1 : 0,
    tone: /[！!]{2,}/.test(answer) ? 0 : 1,
    empathy: count(EMPATHY_KEYWORDS) > 0 ? 1 : 0,
    social_decorum: count(DECORUM_KEYWORDS) >= 3 ? 2 : count(DECORUM_KEYWORDS) >= 1 ? 1 : 0,
    repeated_answer: new Set(answers).size === answers.length ? 1 : 0,
    anaphora_matching: 1,
    key_information: overlap(question, answer) > 0 ? 1 : 0,
  };
  return Math.min(max, scores[name] ?? 0);
}

/** The offline rubric stand-in, served like any judge model through the caller. */
export class KeywordRubricJudgeProvider extends OfflineProvider {
  /** `offline:rubric`. */
  override readonly model = "offline:rubric";
  /** Label that says what it is. */
  override readonly label = "offline:rubric (surface rules on the answer's text, not an LLM judge)";

  /**
   * Scores every indicator the prompt asks for, or classes a robustness variant's answer when the prompt is a
   * consistency prompt; a prompt that asks for neither is an error.
   */
  protected answer(request: ChatRequest): ChatResponse {
    const { sample, answer } = this.judgedAnswer(request);
    const prompt = request.messages.map((m) => m.content).join("\n");
    const consistency = offlineConsistencyReply(prompt, answer);
    if (consistency !== undefined) return { text: consistency, finishReason: "stop" };
    const indicators = requestedIndicators(prompt);
    if (Object.keys(indicators).length === 0) {
      throw new ProviderError("offline:rubric reads rubric prompts that show a scores object", {
        retryable: false,
      });
    }
    const answers = transcriptAnswers(prompt);
    const scores = Object.fromEntries(
      Object.entries(indicators).map((
        [name, max],
      ) => [name, ruleScore(name, max, sample.input, answer, answers.length ? answers : [answer])]),
    );
    return {
      text: JSON.stringify({ reasoning: "surface rules (offline stand-in, not a judgement)", scores }),
      finishReason: "stop",
    };
  }
}

/** `offline:rubric`, registered for the judge role (MedGPTEval's aspect judges and its consistency judge). */
export const RUBRIC_STAND_IN: OfflineStandIn = {
  role: "judge",
  description:
    "surface rules on the answer scoring rubric indicators, MedGPTEval (smoke test, not an LLM judge)",
  create: () => new KeywordRubricJudgeProvider(),
};
