/**
 * An offline stand-in for the `rephraser` role (`offline:rephraser`), so robustness sets A and B can run with no
 * model. For set A it frames the question with a different greeting and closing (the question itself is kept
 * word for word, so its meaning is kept); for set B it also replaces the question's last clause with another
 * patient question (so what is asked changes). It returns 50 rewrites, more than any run asks for, as the
 * `{"variants": [...]}` object the rephraser prompt asks for. Which set is meant is read from the request's
 * sample (a robustness variant). Deterministic and labelled offline: it exercises the pipeline, nothing more.
 * @module
 */
import { OfflineProvider } from "../providers/offline/offline_provider.ts";
import type { OfflineStandIn } from "../providers/offline/stand_in.ts";
import { REPHRASER } from "./sets.ts";
import { type ChatRequest, type ChatResponse, ProviderError } from "../providers/types.ts";

/** Greetings put before the question. */
const OPENINGS = [
  "医生您好，",
  "请问，",
  "想咨询一下：",
  "您好，",
  "麻烦问一下，",
  "打扰了，",
  "医生，",
  "求助：",
  "",
  "冒昧问一下，",
];

/** Closings put after the question. */
const CLOSINGS = ["", "谢谢。", "麻烦您了。", "盼回复。", "谢谢医生。"];

/** Questions that replace the last clause in set B. */
const OTHER_QUESTIONS = [
  "这种情况需要马上去急诊吗？",
  "这个病会遗传给孩子吗？",
  "是不是一定要做手术？",
  "平时饮食上要注意什么？",
  "能不能只吃中药调理？",
  "多久复查一次比较好？",
  "会不会发展成癌症？",
  "还可以正常上班吗？",
  "需要住院治疗吗？",
  "备孕的话会有影响吗？",
];

/** Returns the question without its last clause (the part after the last clause mark), or itself. */
function withoutLastClause(question: string): string {
  const trimmed = question.replace(/[？?。！!\s]+$/u, "");
  const cut = Math.max(...["，", "。", "；", ",", ";"].map((mark) => trimmed.lastIndexOf(mark)));
  return cut > 0 ? trimmed.slice(0, cut + 1) : `${trimmed}，`;
}

/** Returns the stand-in's rewrites of `question`: same meaning (`changed` false) or changed meaning. */
export function offlineRephrasings(question: string, changed: boolean): string[] {
  const body = question.trim();
  const out: string[] = [];
  if (!changed) {
    for (const closing of CLOSINGS) {
      for (const opening of OPENINGS) if (opening || closing) out.push(`${opening}${body}${closing}`);
    }
    return out;
  }
  const head = withoutLastClause(body);
  for (const opening of OPENINGS.slice(0, 5)) {
    for (const other of OTHER_QUESTIONS) out.push(`${opening}${head}${other}`);
  }
  return out;
}

/** The offline rephraser, served like any model through the caller. */
export class OfflineRephraserProvider extends OfflineProvider {
  /** `offline:rephraser`. */
  override readonly model = "offline:rephraser";
  /** Label that says what it is. */
  override readonly label = "offline:rephraser (fixed greetings and substituted questions, not a model)";

  /** Rewrites the last user message for the set of the request's sample. */
  protected answer(request: ChatRequest): ChatResponse {
    const sample = this.sampleOf(request);
    const set = (sample.extra.robustness as { set?: string } | undefined)?.set;
    if (set !== "A" && set !== "B") {
      throw new ProviderError("offline:rephraser rewrites questions for robustness sets A and B only", {
        retryable: false,
      });
    }
    const question = request.messages.findLast((m) => m.role === "user")?.content ?? "";
    return {
      text: JSON.stringify({ variants: offlineRephrasings(question, set === "B") }),
      finishReason: "stop",
    };
  }
}

/** `offline:rephraser`, registered for the `rephraser` role of robustness sets A and B. */
export const REPHRASER_STAND_IN: OfflineStandIn = {
  role: REPHRASER,
  description:
    "frames the question with fixed greetings (A) or swaps its last clause for another question (B)",
  create: () => new OfflineRephraserProvider(),
};
