import { z } from 'zod';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * An integer query parameter from its text: `fallback` when absent, else an integer from `min` to
 * `max`; otherwise a message naming the parameter and its allowed values.
 */
export function boundedInt(raw: string | undefined, name: string, min: number, max: number, fallback: number): Parsed<number> {
  if (raw === undefined) return { ok: true, value: fallback };
  const parsed = z
    .string()
    .regex(/^[0-9]+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})` };
}

/** An enumerated query parameter: `values[0]` when absent; otherwise a message naming the allowed values. */
export function oneOf<T extends string>(raw: string | undefined, name: string, values: readonly [T, ...T[]]): Parsed<T> {
  if (raw === undefined) return { ok: true, value: values[0] };
  const parsed = z.enum(values).safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: `${name} must be one of ${values.join(', ')} (got ${JSON.stringify(raw)})` };
}

/** A time query parameter (ISO-8601): `Date.now()` when absent; otherwise a message with an example. */
export function timeParam(raw: string | undefined, name: string): Parsed<number> {
  if (raw === undefined) return { ok: true, value: Date.now() };
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? { ok: false, message: `${name} must be an ISO-8601 time, e.g. 2026-11-21T18:00:00Z (got ${JSON.stringify(raw)})` } : { ok: true, value: ms };
}

/** A comma-separated list of at most `max` UUIDs (none when absent); otherwise a message naming the bad item. */
export function uuidList(raw: string | undefined, name: string, max: number): Parsed<string[]> {
  if (raw === undefined) return { ok: true, value: [] };
  const items = raw.split(',').map((s) => s.trim());
  if (items.length > max) return { ok: false, message: `${name} names at most ${max} ids (got ${items.length})` };
  const bad = items.find((id) => !z.string().uuid().safeParse(id).success);
  return bad === undefined ? { ok: true, value: items } : { ok: false, message: `${name} must be comma-separated UUIDs (got ${JSON.stringify(bad.slice(0, 60))})` };
}
