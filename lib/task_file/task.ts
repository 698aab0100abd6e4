/**
 * A {@linkcode Task} built from a task file: its data (with the column mapping), the chat solver with the
 * file's prompts (and its chain-of-thought instruction), the scorer from the registry, rows and a summary of
 * the scorer's metrics with n and 95% CI overall and per declared group field (clustered by its `cluster:`
 * column when it has one), the flags its scorer's roles bring, the train split for few-shot and the
 * perturbations it declares.
 * @module
 */
import { dirname, relative, resolve } from "node:path";
import { projectPath } from "../core/fs.ts";
import { CI_METHOD, type RunLabels, type SampleRow, type Summary, summaryLabels } from "../core/summary.ts";
import type { Sample } from "../core/sample.ts";
import type { AuxiliaryInput, ClusterSpec, LoadOptions, RunView, Solver, Task } from "../core/task.ts";
import { answeredCount, OFFLINE_NOTE, summarize } from "../report/summary.ts";
import { cotSolver } from "../solvers/cot.ts";
import { messagesSolver } from "../solvers/context.ts";
import { TRAIN_SPLIT } from "../solvers/few_shot.ts";
import { type DataSpec, loadTaskData, withColumns } from "./data.ts";
import { applicablePerturbations, type TaskFile } from "./schema.ts";
import { scorerEntry } from "./scorers.ts";
import { defaultFewShotTemplate, defaultUserTemplate, type ItemShape } from "./templates.ts";

/** Returns the shape of a task's items from its scorer. */
function shapeOf(spec: TaskFile): ItemShape {
  if (spec.scorer.kind === "sequence") return "sequence";
  if (spec.scorer.kind === "choice") return spec.scorer.multiple ? "multiple" : "choice";
  return "open";
}

/** Returns the perturbation kinds a task's `conditions` declare (`perturb` alone: every kind that applies). */
export function declaredPerturbations(spec: TaskFile): string[] {
  const applicable = applicablePerturbations(spec);
  const kinds = (spec.conditions ?? []).filter((c) => c.startsWith("perturb"))
    .flatMap((c) => c === "perturb" ? applicable : [c.slice("perturb:".length)]);
  return [...new Set(kinds)];
}

/**
 * Returns the `--ablation` values that run every condition a task file declares: `cot`, `fewshot:K` (`shots`
 * exemplars) and one `perturb:KIND` per declared perturbation kind (what the notebook runs).
 */
export function declaredAblations(spec: TaskFile, shots: number): string[] {
  const declared = spec.conditions ?? [];
  return [
    ...(declared.includes("cot") ? ["cot"] : []),
    ...(declared.includes("fewshot") ? [`fewshot:${shots}`] : []),
    ...declaredPerturbations(spec).map((kind) => `perturb:${kind}`),
  ];
}

/**
 * Returns the registry's conditions a task file makes available: chain of thought, pivot translation and MPS
 * always; few-shot when declared (it has a train split); the character perturbations and `nota` as its
 * `perturb` entries declare them.
 */
export function declaredConditions(spec: TaskFile): string[] {
  const kinds = declaredPerturbations(spec);
  return [
    "cot",
    "pivot",
    "mps",
    ...((spec.conditions ?? []).includes("fewshot") ? ["fewshot"] : []),
    ...(kinds.some((k) => k !== "nota") ? ["perturb"] : []),
    ...(kinds.includes("nota") ? ["nota"] : []),
  ];
}

/** The group value of a sample whose data has none for a group field: tabulated, so the groups add up. */
export const MISSING_GROUP = "(missing)";

/** Returns `fields` with every missing value (`null`) as {@linkcode MISSING_GROUP}. */
function tabulated(fields: Sample["fields"]): Sample["fields"] {
  return Object.fromEntries(Object.entries(fields).map(([field, value]) => [field, value ?? MISSING_GROUP]));
}

/** Returns a note per group field some rows have no value for: how many, and where they are tabulated. */
function missingNotes(rows: readonly SampleRow[], groups: readonly string[]): string[] {
  return groups.flatMap((field) => {
    const missing = rows.filter((r) => r.fields[field] === MISSING_GROUP).length;
    return missing
      ? [
        `${field}: ${missing} of ${rows.length} samples have no value in the data; tabulated as "${MISSING_GROUP}"`,
      ]
      : [];
  });
}

/**
 * Returns the clusters of a task file's `cluster:` column: each sample's cluster id as the loader read it into
 * `extra.cluster` (a record with an empty cell is a cluster of its own).
 */
export function clusterSpec(column: string): ClusterSpec {
  return {
    name: `${column} clusters`,
    unit: "samples",
    of: (sample) => (typeof sample.extra.cluster === "string" ? sample.extra.cluster : null),
  };
}

/** Returns `path` relative to the project root (how `Task.defaultDataPath` is given). */
function fromRoot(path: string): string {
  return relative(projectPath(), path);
}

/** The solver of a task file: its system prompt, the conversation so far, then the rendered user prompt. */
function taskSolver(name: string, system: string | undefined, user: string): Solver {
  return messagesSolver(name, { ...(system ? { system } : {}), user }, (sample, history) => [
    ...(system ? [{ role: "system" as const, content: system }] : []),
    ...history,
    { role: "user", content: sample.input },
  ]);
}

/**
 * Returns the task a task file declares; `file` is its path (relative paths in it are taken from its folder).
 * `spec` has been checked by `parseTaskFile`.
 */
export function taskFromFile(spec: TaskFile, file: string): Task {
  const dir = dirname(resolve(file));
  const name = spec.name ?? file.split("/").at(-1)!.replace(/\.(ya?ml|json)$/i, "");
  const shape = shapeOf(spec);
  const testPath = resolve(dir, spec.data.path);
  const trainPath = spec.data.train ? resolve(dir, spec.data.train) : undefined;
  const groups = spec.groups ?? [];
  const entry = scorerEntry(spec.scorer);
  const user = spec.prompt?.user ?? defaultUserTemplate(spec.language, shape);
  const data: DataSpec = {
    benchmark: name,
    taskFile: file,
    shape,
    columns: {
      id: spec.columns?.id,
      input: spec.columns?.input,
      choices: spec.columns?.choices,
      answer: spec.columns?.answer,
      reference: spec.columns?.reference,
    },
    optionColumns: spec.columns?.options,
    groups,
    ...(spec.cluster ? { cluster: spec.cluster } : {}),
    needsAnswer: spec.scorer.kind === "exact" || spec.scorer.kind === "regex",
    needsReference: spec.scorer.kind === "rouge1" || spec.scorer.kind === "similarity",
    user,
    fewshot: spec.prompt?.fewshot ?? defaultFewShotTemplate(spec.language, shape),
    ...(spec.scorer.kind === "judge" ? { rubric: spec.scorer.rubric } : {}),
    format: spec.data.format,
  };
  const load = (split: "test" | "train") => (path: string, options?: LoadOptions) =>
    loadTaskData(path, withColumns(data, options?.columns), split);
  const solver = taskSolver(name, spec.prompt?.system, user);
  const train: AuxiliaryInput[] = trainPath
    ? [{
      name: TRAIN_SPLIT,
      description: `few-shot exemplars (default ${fromRoot(trainPath)})`,
      defaultPath: fromRoot(trainPath),
      locate: (dataFile) => Promise.resolve(resolve(dataFile) === testPath ? trainPath : undefined),
      load: load("train"),
    }]
    : [];
  const metricNames = entry.metrics.map((m) => m.name);
  const proportions = entry.metrics.filter((m) => m.proportion).map((m) => m.name);
  const primary = entry.metrics[0];
  const clusters = spec.cluster ? clusterSpec(spec.cluster) : undefined;
  return {
    name,
    title: spec.title ?? name,
    language: spec.language,
    defaultDataPath: fromRoot(testPath),
    groupFields: groups,
    loadOptions: ["columns"],
    ...(entry.roles ? { roles: entry.roles } : {}),
    description:
      `${spec.description ?? spec.title ?? name} (task file ${file}; scored by ${spec.scorer.kind}: ` +
      `${primary.label}${groups.length ? `, by ${groups.join(", ")}` : ""})`,
    generation: {
      maxTokens: spec.generation?.max_tokens ?? 1024,
      ...(spec.generation?.temperature !== undefined ? { temperature: spec.generation.temperature } : {}),
    },
    choices: spec.scorer.kind === "choice",
    conditions: declaredConditions(spec),
    load: load("test"),
    solver,
    ...(spec.prompt?.cot ? { solverFor: { cot: cotSolver(solver, spec.prompt.cot) } } : {}),
    scorers: [entry.scorer],
    auxiliary: train,
    report: { metrics: entry.metrics },
    ...(clusters ? { clusters } : {}),
    rows: (view: RunView, labels: RunLabels): SampleRow[] =>
      view.samples.map((sample) => {
        const own = (view.scores.get(sample.id) ?? []).filter((s) => s.scorer === entry.scorer.name);
        const cluster = clusters?.of(sample) ?? null;
        const repeats = entry.repeats?.(own, labels.judgeRuns);
        return {
          id: sample.id,
          fields: tabulated(sample.fields),
          values: entry.values(own, labels.judgeRuns),
          ...(cluster !== null ? { cluster } : {}),
          ...(repeats ? { repeats } : {}),
        };
      }),
    aggregate: (rows: readonly SampleRow[], view: RunView, labels: RunLabels): Summary => {
      const core = summarize(rows, metricNames, groups, {
        seed: `${labels.benchmark}:${labels.condition}`,
        proportions,
        ...(clusters ? { clusters } : {}),
      });
      const answered = answeredCount(view);
      const scores = [...view.scores.values()].flat().filter((s) => s.scorer === entry.scorer.name);
      const judged = entry.scorer.roles.includes("judge");
      return {
        ...summaryLabels(labels),
        // Judge runs mean something only to a judged task.
        judge_runs: judged ? labels.judgeRuns : 0,
        n: core.n,
        metrics: core.metrics,
        groups: core.groups,
        counts: {
          samples: view.samples.length,
          answered,
          answer_errors: view.samples.length - answered,
          unscored: rows.filter((r) => r.values[primary.name] === null).length,
          ...(judged ? { judgings: scores.length, judge_errors: scores.filter((s) => !s.valid).length } : {}),
          ...(metricNames.includes("extraction_failure")
            ? { extraction_failures: rows.filter((r) => r.values.extraction_failure === 1).length }
            : {}),
        },
        ci_method: CI_METHOD,
        ...core.design,
        notes: [...entry.notes, ...missingNotes(rows, groups), ...(labels.offline ? [OFFLINE_NOTE] : [])],
      };
    },
  };
}
