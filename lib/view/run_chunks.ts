/**
 * Streams one run store into the bundle's chunks, holding at most one chunk of records at a time:
 *
 * - sample chunks `<run>/s<k>`: the samples in their order, `size` per chunk;
 * - results chunks `<run>/o<k>`: each sample's outputs, model call (the conversation as sent), scores and the
 *   judges' calls, by sample id in code-point order (the order the store's readers yield them), `size` ids per
 *   chunk;
 * - the row index `<run>/rows`: what the samples table shows and filters on, one entry per sample.
 * @module
 */
import type { StoredCall, StoredOutput, StoredScore } from "../core/records.ts";
import type { SampleRow } from "../core/summary.ts";
import type { RunStore } from "../store/run_store.ts";
import type {
  CallRecord,
  CodedColumn,
  ConditionColumns,
  ConditionResult,
  RowIndex,
  SampleRecord,
  ScoreRecord,
} from "./bundle_format.ts";
import { FLAG } from "./bundle_format.ts";
import type { ChunkWriter } from "./chunk_writer.ts";
import { isHumanScorer, sampleOutcome } from "./sample_outcome.ts";
import { compareCodePoints, recordsBySample } from "./sample_streams.ts";

/** Verdict fields a judged run shows as table columns at most (the others stay on the sample page). */
const MAX_VERDICT_FIELDS = 8;
/** What {@linkcode writeRunChunks} needs besides the store. */
export interface RunChunkOptions {
  /** Run key (chunk names start with it). */
  key: string;
  /** Samples per chunk. */
  size: number;
  /** Conditions, baseline first. */
  conditions: readonly string[];
  /**
   * Fields the table shows (empty: every field of the samples); a field the samples lack (one the benchmark
   * derives, e.g. an age band) is taken from the baseline's rows.
   */
  fields: readonly string[];
  /** The scorer whose mean valid value is a row's score (`null`: the first non-human scorer met). */
  primaryScorer: string | null;
  /** The benchmark's per-sample rows by condition, and the metrics of theirs to carry per row (absent: none). */
  rows?: { metrics: readonly string[]; byCondition: ReadonlyMap<string, readonly SampleRow[]> };
  /** Most verdict fields shown as table columns. */
  maxVerdictFields?: number;
}

/** What was written for a run. */
export interface RunChunkResult {
  /** Samples stored. */
  samples: number;
  /** Sample and results chunks written. */
  chunks: { size: number; samples: number; results: number };
  /** The table's fields. */
  fields: string[];
  /** The primary scorer actually used. */
  primaryScorer: string | null;
  /** Verdict fields in the row index. */
  verdictFields: string[];
  /** Metrics in the row index. */
  rowMetrics: string[];
}

/** Builds a dictionary-coded column row by row. */
class CodedColumnBuilder {
  readonly #codes = new Map<string | number, number>();
  readonly column: CodedColumn;

  constructor(rows: number) {
    this.column = { values: [], codes: new Array(rows).fill(-1) };
  }

  set(row: number, value: unknown): void {
    if (value === null || value === undefined) return;
    const key = typeof value === "number" ? value : String(value);
    let code = this.#codes.get(key);
    if (code === undefined) {
      code = this.column.values.length;
      this.#codes.set(key, code);
      this.column.values.push(key);
    }
    this.column.codes[row] = code;
  }
}

/** Returns a stored call as the sample page shows it; `full` keeps the messages and reply of a model call. */
export function callRecord(call: StoredCall, full: boolean, answer: string | null): CallRecord {
  return {
    key: call.key,
    role: call.role,
    model: call.model,
    ...(full ? { messages: call.request.messages, params: call.request.params } : {}),
    ...(full && call.text !== answer ? { text: call.text } : {}),
    finishReason: call.finishReason,
    usage: call.usage,
    attempts: call.attempts,
    latencyMs: call.latencyMs,
    endpoint: call.endpoint ?? null,
    refusal: call.refusal ?? null,
    reasoning: call.reasoning ?? null,
    createdAt: call.createdAt,
  };
}

function scoreRecord(score: StoredScore): ScoreRecord {
  return {
    scorer: score.scorer,
    judge: score.judge,
    run: score.run,
    value: score.value,
    values: score.values,
    valid: score.valid,
    reason: score.reason,
    callKey: score.callKey,
    detail: score.detail,
  };
}

/** Everything stored for one sample in one condition, with the calls read from the store. */
function conditionResult(store: RunStore, output: StoredOutput | undefined, scores: StoredScore[]): {
  result: ConditionResult;
  call: StoredCall | undefined;
} {
  const call = output?.callKey ? store.getCall(output.callKey) : undefined;
  const scoreCalls: CallRecord[] = [];
  const seen = new Set<string>();
  for (const score of scores) {
    if (!score.callKey || seen.has(score.callKey)) continue;
    seen.add(score.callKey);
    const judgeCall = store.getCall(score.callKey);
    if (!judgeCall) continue;
    const record = callRecord(judgeCall, false, null);
    // A verdict that did not parse is explained by the judge's own reply.
    if (!score.valid) record.text = judgeCall.text;
    scoreCalls.push(record);
  }
  return {
    result: {
      answer: output?.text ?? null,
      error: output?.error ?? null,
      solver: output?.detail ?? null,
      call: call ? callRecord(call, true, output?.text ?? null) : null,
      scores: scores.map(scoreRecord),
      scoreCalls,
    },
    call,
  };
}

/** Writes the sample chunks; returns the ids in sample order and the coded field columns. */
async function writeSampleChunks(
  store: RunStore,
  writer: ChunkWriter,
  options: RunChunkOptions,
): Promise<{ ids: string[]; fieldValues: Map<string, unknown[]>; chunks: number }> {
  const ids: string[] = [];
  const fieldValues = new Map<string, unknown[]>(options.fields.map((f) => [f, []]));
  const allFields = options.fields.length === 0;
  let chunk: SampleRecord[] = [];
  let chunks = 0;
  const flush = async () => {
    await writer.compressed(`${options.key}/s${chunks}`, { start: chunks * options.size, samples: chunk });
    chunks++;
    chunk = [];
  };
  for (const sample of store.eachSample()) {
    const position = ids.length;
    ids.push(sample.id);
    for (const field of Object.keys(sample.fields)) {
      if (!fieldValues.has(field)) {
        if (!allFields) continue;
        fieldValues.set(field, new Array(position).fill(null));
      }
    }
    for (const [field, values] of fieldValues) values.push(sample.fields[field] ?? null);
    chunk.push({
      id: sample.id,
      position,
      input: sample.input,
      reference: sample.reference,
      conversation: sample.conversation,
      fields: sample.fields,
      extra: { ...sample.extra, ...(sample.choices ? { choices: sample.choices } : {}) },
    });
    if (chunk.length === options.size) await flush();
  }
  if (chunk.length) await flush();
  return { ids, fieldValues, chunks };
}

function emptyConditionColumns(rows: number, metrics: readonly string[]): ConditionColumns {
  return {
    score: new Array(rows).fill(null),
    metrics: Object.fromEntries(metrics.map((m) => [m, new Array(rows).fill(null)])),
    flags: new Array(rows).fill(FLAG.notRun),
    verdict: {},
  };
}

/**
 * Writes a run's sample chunks, results chunks and row index. The results are read by sample id from the
 * store's streaming readers, a chunk at a time; calls are looked up by key as their outputs and scores come.
 */
export async function writeRunChunks(
  store: RunStore,
  writer: ChunkWriter,
  options: RunChunkOptions,
): Promise<RunChunkResult> {
  const { key, size } = options;
  const { ids, fieldValues, chunks: sampleChunks } = await writeSampleChunks(store, writer, options);
  const rows = ids.length;
  const positionOf = new Map(ids.map((id, i) => [id, i]));
  const byRank = ids.map((id, i) => ({ id, i })).sort((a, b) => compareCodePoints(a.id, b.id));
  const resultChunk = new Array<number>(rows);
  byRank.forEach(({ i }, rank) => (resultChunk[i] = Math.floor(rank / size)));
  const resultChunks = Math.ceil(rows / size);

  const metrics = options.rows?.metrics ?? [];
  const columns = new Map(options.conditions.map((c) => [c, emptyConditionColumns(rows, metrics)]));
  const verdicts = new Map(options.conditions.map((c) => [c, new Map<string, CodedColumnBuilder>()]));
  const maxVerdictFields = options.maxVerdictFields ?? MAX_VERDICT_FIELDS;
  let primaryScorer = options.primaryScorer;

  let written = 0;
  let chunk: Record<string, Record<string, ConditionResult>> = {};
  const flushUpTo = async (upTo: number) => {
    while (written < upTo) {
      await writer.compressed(`${key}/o${written}`, { results: chunk });
      chunk = {};
      written++;
    }
  };
  for (const { id, outputs, scores } of recordsBySample(store.eachOutput(), store.eachScore())) {
    const position = positionOf.get(id);
    if (position === undefined) continue; // results of a sample the store does not hold: nothing to show
    if (resultChunk[position] < written) {
      throw new Error(`view: ${store.path}: results of ${id} came after their chunk was written (id order)`);
    }
    await flushUpTo(resultChunk[position]);
    primaryScorer ??= scores.find((s) => !isHumanScorer(s.scorer))?.scorer ?? null;
    const results: Record<string, ConditionResult> = {};
    const conditionNames = new Set([...outputs.map((o) => o.condition), ...scores.map((s) => s.condition)]);
    for (const condition of conditionNames) {
      const output = outputs.find((o) => o.condition === condition);
      const own = scores.filter((s) => s.condition === condition);
      const { result, call } = conditionResult(store, output, own);
      results[condition] = result;
      const column = columns.get(condition);
      if (!column) continue;
      const outcome = sampleOutcome(
        output,
        own,
        call
          ? { finishReason: call.finishReason, refusal: call.refusal ?? null, text: call.text }
          : undefined,
        primaryScorer,
      );
      column.score[position] = outcome.score;
      column.flags[position] = outcome.flags;
      const builders = verdicts.get(condition)!;
      for (const [field, value] of Object.entries(outcome.verdict)) {
        let builder = builders.get(field);
        if (!builder) {
          if (builders.size >= maxVerdictFields) continue;
          builders.set(field, builder = new CodedColumnBuilder(rows));
        }
        builder.set(position, value);
      }
    }
    chunk[id] = results;
  }
  await flushUpTo(resultChunks);

  for (const [c, condition] of options.conditions.entries()) {
    const column = columns.get(condition)!;
    for (const [field, builder] of verdicts.get(condition)!) column.verdict[field] = builder.column;
    for (const { id, values, fields } of options.rows?.byCondition.get(condition) ?? []) {
      const position = positionOf.get(id);
      if (position === undefined) continue;
      for (const metric of metrics) {
        const value = values[metric];
        if (value !== undefined) column.metrics[metric][position] = value;
      }
      if (c > 0) continue;
      for (const [field, values] of fieldValues) {
        if (values[position] === null && fields[field] !== undefined) values[position] = fields[field];
      }
    }
  }
  const fields: Record<string, CodedColumn> = {};
  for (const [field, values] of fieldValues) {
    const builder = new CodedColumnBuilder(rows);
    values.forEach((value, i) => builder.set(i, value));
    fields[field] = builder.column;
  }
  const index: RowIndex = { ids, fields, resultChunk, conditions: Object.fromEntries(columns) };
  await writer.compressed(`${key}/rows`, index);
  const verdictFields = [...new Set([...verdicts.values()].flatMap((b) => [...b.keys()]))];
  return {
    samples: rows,
    chunks: { size, samples: sampleChunks, results: resultChunks },
    fields: [...fieldValues.keys()],
    primaryScorer,
    verdictFields,
    rowMetrics: [...metrics],
  };
}
