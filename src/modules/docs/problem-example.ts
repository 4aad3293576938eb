import { problem, type ProblemExtensions } from '../../lib/errors';

/** A JSON object of the API document. */
export type Json = Record<string, any>;

/**
 * What the examples need from modules that import this one (live-activities imports the docs'
 * polish), given by the app that joins them: the eight template slugs.
 */
export interface ErrorFacts {
  templateSlugs: readonly string[];
}

/** One example of an error answer, as the API document shows it. */
export interface ProblemExample {
  summary: string;
  value: Json;
}

/** The example of an answer with this status and detail (and extension members): the body the server sends. */
export const example = (summary: string, status: number, detail: string, extensions?: ProblemExtensions): ProblemExample => ({
  summary,
  value: problem(status, detail, extensions),
});
