import { Redactor } from '../lifecycle/redaction/redactor.js';

/** One setting the application cannot run with, and what is wrong with it (without the variable's name). */
export interface ConfigurationProblem {
  variable: string;
  problem: string;
}

/**
 * A configuration mistake: the process stops at start with this message alone, one line `<VARIABLE>: <what is
 * wrong>` (several joined by `; `), passed through the redaction since a value may hold a password.
 */
export class ConfigurationError extends Error {
  readonly problems: readonly ConfigurationProblem[];

  constructor(variable: string, problem: string);
  constructor(problems: readonly ConfigurationProblem[]);
  constructor(first: string | readonly ConfigurationProblem[], problem = '') {
    const problems = typeof first === 'string' ? [{ variable: first, problem }] : first;
    super(problems.map((p) => `${p.variable}: ${oneLine(p.problem)}`).join('; '));
    this.name = 'ConfigurationError';
    this.problems = problems;
    // A value quoted in a problem may hold credentials (`mysql://shop:secret@db`): the message never keeps them.
    this.message = Redactor.text(this.message);
  }

  /** The variables named, in order. */
  get variables(): string[] {
    return this.problems.map((p) => p.variable);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
