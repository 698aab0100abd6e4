/**
 * Offline stand-ins registered by name: the generic ones and those a benchmark (or robustness) brings from its
 * own folder. The pipeline passes {@linkcode STAND_INS} to the provider factory, so `lib/providers/` imports
 * no benchmark; a new benchmark with its own stand-in adds it here.
 * @module
 */
import {
  GENERIC_STAND_INS,
  type OfflineStandIns,
  standInsByRole,
  standInsFor,
} from "../providers/offline/stand_in.ts";
import { REPHRASER_STAND_IN } from "../robustness/offline_rephraser.ts";
import { RUBRIC_STAND_IN } from "./medgpteval/offline_rubric.ts";
import { MEDJUDGE_STAND_IN } from "./permedcqa/offline_medjudge.ts";

/** Every offline stand-in, by `offline:*` name. */
export const STAND_INS: OfflineStandIns = {
  ...GENERIC_STAND_INS,
  "offline:medjudge": MEDJUDGE_STAND_IN,
  "offline:rubric": RUBRIC_STAND_IN,
  "offline:rephraser": REPHRASER_STAND_IN,
};

/** Offline model names and what they are. */
export const OFFLINE_MODELS: Record<string, string> = standInsFor(STAND_INS, "model");

/** Offline judge names and what they are (accepted for judge roles whose scorers can read them). */
export const OFFLINE_JUDGES: Record<string, string> = standInsFor(STAND_INS, "judge");

/** Offline stand-ins of the roles beyond model and judge, by role. */
export const OFFLINE_ROLES: Readonly<Record<string, Record<string, string>>> = standInsByRole(STAND_INS);
