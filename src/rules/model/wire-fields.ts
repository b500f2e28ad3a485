import { z } from 'zod';
import { parseWireTimeMs } from './dates';
import { isWireTimeMs, wireTimeRangeMessage } from '../../shared/wire-text';

/** zod field builders shared by the rules system's wire formats, each message naming its field. */

export const wireText = (field: string) => z.string({ required_error: `${field} is required`, invalid_type_error: `${field} must be a string` });

export const wireCount = (field: string) =>
  z
    .number({ required_error: `${field} is required`, invalid_type_error: `${field} must be a whole number ≥ 0` })
    .int(`${field} must be a whole number ≥ 0`)
    .nonnegative(`${field} must be a whole number ≥ 0`);

/** False only for a wire time (`parseWireTimeMs`) outside 1970-01-01 .. 2100-12-31; a malformed one is left to the format check. */
export function wireTimeInRange(text: string): boolean {
  const ms = parseWireTimeMs(text);
  return ms === null || isWireTimeMs(ms);
}

/** A `YYYY-MM-DD` date (or an ISO-8601 date-time) in 1970-01-01 .. 2100-12-31, kept as written (hashes cover the text). */
export const wireDay = (field: string) =>
  z
    .string({ required_error: `${field} is required`, invalid_type_error: `${field} must be a YYYY-MM-DD string` })
    .refine((v) => parseWireTimeMs(v) !== null, { message: `${field} must be a date YYYY-MM-DD or an ISO-8601 date-time` })
    .refine(wireTimeInRange, (v) => ({ message: wireTimeRangeMessage(field, v) }));

/** `wireDay` read as epoch ms (`parseWireTimeMs`). */
export const wireDayMs = (field: string) => wireDay(field).transform((v) => parseWireTimeMs(v) as number);

/** The first issue of a failed parse as `{ field, message }`; `field` is the dotted path, or `whole` for the value itself. */
export function firstIssue(error: z.ZodError, whole: string): { field: string; message: string } {
  const issue = error.issues[0] as z.ZodIssue;
  return { field: issue.path.join('.') || whole, message: issue.message };
}
