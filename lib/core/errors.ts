/**
 * Error types the command line turns into one-line messages instead of stack traces.
 * @module
 */

/** Where bad input was found: the file, the record (index or line) and the field. */
export interface InputLocation {
  /** Path of the file that was read. */
  file: string;
  /** Human-readable position, e.g. `line 12` or `record 医疗知识[3]`. */
  record?: string;
  /** Dotted path of the offending field, e.g. `round` or `checklist`. */
  field?: string;
}

/** Bad input at the boundary: its message is one line naming file, record, field and what was expected. */
export class InputError extends Error {
  /** Where the bad input was found. */
  readonly location: InputLocation;
  /** What was expected there. */
  readonly expected: string;

  /** Builds the one-line message `file: record: field: expected`. */
  constructor(location: InputLocation, expected: string) {
    const parts = [location.file, location.record, location.field && `field "${location.field}"`, expected]
      .filter((p): p is string => Boolean(p));
    super(parts.join(": ").replace(/\s*\n\s*/g, " "));
    this.name = "InputError";
    this.location = location;
    this.expected = expected;
  }
}

/** A wrong or missing setting (command-line flag, environment variable, resumed run that does not match). */
export class ConfigError extends Error {
  /** Wraps a one-line explanation of what to change. */
  constructor(message: string) {
    super(message.replace(/\s*\n\s*/g, " "));
    this.name = "ConfigError";
  }
}
