/**
 * The contracts of a benchmark: a task is data + a solver + scorers + rows. Solvers and scorers reach models
 * only through named roles (`model`, `judge`, `translator`, `embed`, or any role a task declares), each served
 * by the pipeline through one caller, so every call is stored, limited, retried and resumable whoever makes it.
 * `lib/benchmarks/<name>/task.ts` fills these in.
 * @module
 */
import type { ChatMessage, GenerationParams } from "./chat.ts";
import type { OutputStatus, StoredScore } from "./records.ts";
import type { ReportSpec } from "./report_spec.ts";
import type { Sample } from "./sample.ts";
import type { ClusterNames, RunLabels, SampleRow, Summary } from "./summary.ts";

/** A request of a role: the messages plus any parameters that override the role's configured defaults. */
export interface RoleRequest extends GenerationParams {
  /** The conversation to continue. */
  messages: ChatMessage[];
  /** Which model of a role that has several (a jury), 0-based; default the first. */
  member?: number;
  /** Repeat number: identical messages asked again as a distinct call (judge runs, re-asks); default 0. */
  repeat?: number;
  /** The answer being judged; never sent, read only by offline stand-ins (like the sample). */
  answer?: string;
  /**
   * The sample the request is made for, when it is not the one the context was opened for (e.g. the clean
   * question a robustness variant is compared with); never sent, read only by offline stand-ins.
   */
  sample?: Sample;
}

/** What a role answered. */
export interface RoleReply {
  /** The reply text. */
  text: string;
  /** The run store key of the call. */
  callKey: string;
  /** `true` when the run store already held the call (nothing was sent). */
  cached: boolean;
  /** The messages as they were sent (after any condition's changes): what a conversation's history keeps. */
  sent: ChatMessage[];
}

/** One model serving a role. */
export interface RoleMember {
  /** Label for manifests and tables, e.g. `gpt-4o @ api.openai.com/v1`; never contains a secret. */
  readonly label: string;
  /** `true` for offline stand-ins; their results are labelled offline everywhere. */
  readonly offline: boolean;
}

/** Access to the run's roles; every call goes through the run store. */
export interface RoleAccess {
  /** Returns `true` when `role` is configured for this run. */
  has(role: string): boolean;
  /** Returns the models serving `role` (several for a jury); throws when the role is not configured. */
  members(role: string): readonly RoleMember[];
  /** Returns the role's configured generation parameters (temperature, seed, max tokens). */
  defaults(role: string): GenerationParams;
  /** Sends `request` to `role` (through the store), for the sample being worked on. */
  generate(role: string, request: RoleRequest): Promise<RoleReply>;
  /** Returns one embedding per text from the `embed` role, through the store. */
  embed(texts: string[]): Promise<number[][]>;
}

/** What a solve step gets: role access plus the task's auxiliary inputs (e.g. a train split for few-shot). */
export interface SolveContext extends RoleAccess {
  /** Returns the samples of auxiliary input `name`, validated; throws when the task declares no such input. */
  auxiliary(name: string): readonly Sample[];
}

/** The state of one conversation when a turn is solved. */
export interface TaskState {
  /** The sample of this turn, as the condition presents it. */
  readonly sample: Sample;
  /** The model's conversation so far: the messages actually sent to it and its replies, in order. */
  readonly history: readonly ChatMessage[];
}

/** What a solve step produced for one turn. */
export interface SolveResult {
  /** The answer that is stored and scored. */
  answer: string;
  /** The call that produced the answer (stored with the output). */
  callKey: string | null;
  /** The messages the conversation keeps for later turns (what the model was sent and answered). */
  turn: ChatMessage[];
  /** What the solver chose for this sample (few-shot exemplar ids, a system role), stored with the output. */
  detail?: Record<string, unknown>;
}

/** Turns one sample (one turn of a conversation) into an answer, calling models by role. */
export interface Solver {
  /** Name recorded in the manifest, e.g. `chat`, `chat+cot`, `pivot:en(chat)`. */
  readonly name: string;
  /** Prompt templates it uses, by name (hashed into the manifest). */
  readonly templates: Record<string, string>;
  /** Roles it calls beyond `model` (e.g. `translator`); the plan requires them to be configured. */
  readonly roles?: readonly string[];
  /** Auxiliary inputs it reads (e.g. `train` for few-shot); the plan loads them only when a solver needs them. */
  readonly auxiliary?: readonly string[];
  /** Solves one turn. Provider failures propagate (the pipeline records them as answer errors). */
  solve(state: TaskState, ctx: SolveContext): Promise<SolveResult>;
}

/** A score a scorer produces for one sample (the run store adds sample, condition and scorer). */
export type ScoreValue = Omit<StoredScore, "sampleId" | "condition" | "scorer">;

/** What a scorer gets for one sample. */
export interface ScoreInput {
  /** The sample. */
  sample: Sample;
  /** The answer to score. */
  answer: string;
  /**
   * The conversation as the model saw it, up to and including this answer (its earlier turns, then this turn's
   * question and answer): what judges of a whole dialogue read. Absent when a scorer is called on its own.
   */
  conversation?: readonly ChatMessage[];
  /** What the solver recorded for this answer ({@linkcode SolveResult.detail}), e.g. the clean answer it is compared with. */
  detail?: Readonly<Record<string, unknown>>;
}

/** What a scorer may call: role access plus the run's repeat count for judges. */
export interface ScoreContext extends RoleAccess {
  /** How many times each answer is judged (`--judge-runs`). */
  judgeRuns: number;
}

/** Turns an answer into scores. */
export interface Scorer {
  /** Name under which scores are stored, e.g. `judge`. */
  readonly name: string;
  /** Roles it calls (e.g. `judge`); the plan requires them to be configured. */
  readonly roles: readonly string[];
  /** Prompt templates it uses (a judge's), by name (hashed into the manifest). */
  readonly templates?: Record<string, string>;
  /** Offline stand-ins (`offline:*` names) it accepts for its roles. */
  readonly offline?: readonly string[];
  /** Scores it will store for `sample`'s answer (progress units): e.g. judge runs × judges, 0 when it does not apply. Default 1. */
  units?(ctx: Pick<ScoreContext, "judgeRuns" | "members">, sample: Sample): number;
  /** Returns the scores of one answer. Provider failures propagate (recorded as score failures). */
  score(input: ScoreInput, ctx: ScoreContext): Promise<ScoreValue[]>;
  /** Sees every sample of the run before scoring starts (e.g. to fit corpus statistics such as IDF). */
  prepare?(samples: readonly Sample[]): void;
}

/** A role a task calls beyond `model` and its scorers' roles (e.g. a rephraser), for planning and `--help`. */
export interface RoleSpec {
  /** Role name; its flags are `--NAME`, `--NAME-base-url`, ... */
  name: string;
  /** What the role does, for `--help` and errors. */
  description: string;
  /** `true` when the task cannot run without it. */
  required: boolean;
}

/** A data input beside the test set (a train split for few-shot exemplars, a robustness set). */
export interface AuxiliaryInput {
  /** Name, as given to `--aux NAME=PATH` and {@linkcode SolveContext.auxiliary}. */
  name: string;
  /** What it is, for `--help`. */
  description: string;
  /** Path of the shipped file, relative to the project root; absent when there is none. */
  defaultPath?: string;
  /** Finds the input beside the main data file (e.g. the train split of a split directory), if there is one. */
  locate?(dataFile: string): Promise<string | undefined>;
  /** Reads and validates it (with the run's `--columns`). Throws `InputError` with a one-line message. */
  load(path: string, options?: LoadOptions): Promise<Sample[]>;
}

/** A field of human ratings: its name and allowed range. */
export interface RatingField {
  /** Column name, e.g. `safety`. */
  name: string;
  /** Smallest allowed value. */
  min: number;
  /** Largest allowed value (numeric fields; for fields with `levels`, the number of levels). */
  max: number;
  /** `true` when only whole numbers are allowed. */
  integer: boolean;
  /**
   * Categories of a categorical field, in order (ordinal fields from best to worst or the reverse): a cell
   * holds one of them (or its 1-based position) and is stored as the category.
   */
  levels?: readonly string[];
}

/** Human ratings a task reads from the run store (imported with `deno task import-ratings`). */
export interface RatingSpec {
  /** What is rated and how the task uses it. */
  description: string;
  /** The fields each rating has. */
  fields: readonly RatingField[];
  /** The field stored as the primary value; absent when the fields only count together. */
  primary?: string;
  /** Maps an item id of a ratings file to the run's sample id (e.g. a dialogue id to its last round). */
  resolve?(id: string, sampleIds: ReadonlySet<string>): string | undefined;
  /** The fields `sampleId` is rated on (default all; e.g. contextual indicators only for dialogues). */
  fieldsOf?(sampleId: string): readonly string[];
}

/**
 * Robustness sets (`--robustness`): variants of some of a task's questions (rephrased with the same or a
 * changed meaning by a `rephraser` role, or with punctuation, grammar or spelling errors), each answered
 * alone and compared with the answer to the clean question by a consistency judge.
 */
export interface RobustnessSource {
  /** Which questions the variants are made from, for `--help` and notes (e.g. `first-round dialogue questions`). */
  description: string;
  /**
   * The questions variants are made from: the samples whose fields hold all these values (e.g.
   * `{ kind: "dialogue", round: 1 }`); each must be a question the model is asked without history.
   */
  where: Readonly<Record<string, string | number>>;
}

/**
 * A role table (`--ablation role`): a system role chosen per sample from one of its fields (e.g. ICD-11
 * chapter → specialist), put to the model by the chat solver with `system` as its system message.
 */
export interface RoleTable {
  /** The sample field that chooses the role, e.g. `icd11`. */
  field: string;
  /** Role by field value. */
  roles: Readonly<Record<string, string>>;
  /** Role of samples whose value is missing or not in the table. */
  fallback: string;
  /** Where the table comes from (a path in `data/`), for notes and the manifest. */
  source: string;
  /** The system message of the persona; `{role}` stands for the role. */
  system: string;
}

/**
 * The language a task's answers are written in, as its chat solver's system message asks for it: pivot
 * translation (`--ablation pivot:LANG`) asks for answers in the pivot language instead.
 */
export interface AnswerLanguage {
  /** The system message of the task's chat solver; `{language}` stands for the language answers are written in. */
  system: string;
}

/** How a task's data is read beyond its path. */
export interface LoadOptions {
  /** Columns under other names: the task's column key → the file's column name (`--columns icd=ICD`). */
  columns?: Readonly<Record<string, string>>;
  /** The split read from a split directory (`--split`), default the task's test split. */
  split?: string;
}

/** Everything the run store holds about one condition of a run, as aggregations read it. */
export interface RunView {
  /** Samples in file order. */
  samples: Sample[];
  /** Whether each sample was answered, by sample id (answers' texts are not held). */
  outputs: Map<string, OutputStatus>;
  /** Scores by sample id (all scorers, judges, raters and runs). */
  scores: Map<string, StoredScore[]>;
}

/**
 * Which samples of a task are not independent of each other: the rounds of one conversation, the questions of
 * one case. Each sample's cluster goes into its row (`SampleRow.cluster`), and the summary's intervals then
 * resample clusters, not samples, for every metric where some cluster holds two or more values.
 */
export interface ClusterSpec extends ClusterNames {
  /** Returns the sample's cluster id; `null`: the sample is a cluster of its own. */
  of(sample: Sample): string | null;
}

/** A benchmark, registered by name. */
export interface Task {
  /** Registry name, e.g. `llmeval-med`. */
  readonly name: string;
  /** Title for reports. */
  readonly title: string;
  /** Language of the questions (BCP 47, e.g. `zh`); pivot translation translates back into it. */
  readonly language: string;
  /** Path of the sample the project ships, relative to the project root. */
  readonly defaultDataPath: string;
  /** Fields tables group by, e.g. `category`, `difficulty`. */
  readonly groupFields: readonly string[];
  /**
   * The load options its loader honours (`--columns`, `--split`); any other is refused for it. The other
   * benchmark flags follow from what it declares: its roles (`--judge-*`, `--embed-*`), `ratings`
   * (`--human-eval`), `robustness` (`--robustness*`).
   */
  readonly loadOptions?: readonly ("columns" | "split")[];
  /** One paragraph for `deno task eval <benchmark> --help`: what is asked, how it is scored. */
  readonly description: string;
  /** Default generation parameters of the model under test. */
  readonly generation: GenerationParams;
  /** Reads and validates a data file. Throws `InputError` with a one-line message on bad input. */
  load(path: string, options?: LoadOptions): Promise<Sample[]>;
  /** The file `load` reads for `path` (a split directory resolves to its split's file); default `path`. */
  dataFile?(path: string, options?: LoadOptions): Promise<string>;
  /**
   * `true` when (some of) its samples are multiple-choice items carrying `Sample.choices`: what
   * `--ablation perturb:nota` changes.
   */
  readonly choices?: boolean;
  /**
   * The conditions that make sense for it, by registry entry name (`cot`, `pivot`, `role`, `fewshot`, `mps`,
   * `perturb`, `nota`), e.g. a task file's `conditions`; absent: every entry whose needs it meets.
   */
  readonly conditions?: readonly string[];
  /** The questions robustness sets are made from, when the task supports `--robustness`. */
  readonly robustness?: RobustnessSource;
  /** The role table, when the task supports role prompting (`--ablation role`). */
  readonly roleTable?: RoleTable;
  /**
   * How its solver asks for the answer language, when it asks for one (pivot translation then asks for answers
   * in the pivot language); absent: pivot translation wraps {@linkcode Task.solver} unchanged.
   */
  readonly answerLanguage?: AnswerLanguage;
  /** The prompt pipeline. */
  readonly solver: Solver;
  /**
   * The task's own solvers for conditions, by condition kind (e.g. `cot`: CliMedBench's chain-of-thought
   * prompts, which replace the answer-format line rather than append an instruction); a condition without an
   * entry here wraps {@linkcode Task.solver} its generic way.
   */
  readonly solverFor?: Readonly<Record<string, Solver>>;
  /** The scorers. */
  readonly scorers: readonly Scorer[];
  /** Roles the task calls beyond `model` and its scorers' roles. */
  readonly roles?: readonly RoleSpec[];
  /** Inputs beside the test set, loaded, validated and hashed into the manifest like the main data. */
  readonly auxiliary?: readonly AuxiliaryInput[];
  /** Its clusters, when some samples belong together (rounds of one conversation); absent: none. */
  readonly clusters?: ClusterSpec;
  /** Human-rating scorers it reads, by scorer name (`human:NAME`). */
  readonly ratings?: Readonly<Record<string, RatingSpec>>;
  /** How the summary is shown in tables and figures. */
  readonly report: ReportSpec;
  /** Each sample's metric values and group fields, from what the run store holds (computed once per condition). */
  rows(view: RunView, labels: RunLabels): SampleRow[];
  /** Computes the summary (metrics with n and 95% CI, per group) from the rows and the run store view. */
  aggregate(rows: readonly SampleRow[], view: RunView, labels: RunLabels): Summary;
}
