import type { OutcomeLabel } from '../../src/scan/model/outcome';

export interface RowSpec {
  n: number;
  labels: OutcomeLabel[];
  project?: string;
  scanner?: string;
  model_provider?: string;
  model_name?: string;
  category?: string;
  startIso?: string;
  stepMinutes?: number;
  keyPrefix?: string;
  confidence?: number;
  summary?: (i: number) => string;
}

/** Deterministic outcome rows: labels cycle through `labels`, one row every `stepMinutes`. */
export function makeRows(spec: RowSpec): Record<string, unknown>[] {
  const start = Date.parse(spec.startIso ?? '2026-11-10T00:00:00Z');
  const step = (spec.stepMinutes ?? 60) * 60_000;
  return Array.from({ length: spec.n }, (_, i) => ({
    finding_key: `${spec.keyPrefix ?? 'f'}-${i}`,
    label: spec.labels[i % spec.labels.length],
    ts: new Date(start + i * step).toISOString(),
    project: spec.project ?? 'payments',
    scanner: spec.scanner ?? 'semgrep',
    model_provider: spec.model_provider ?? 'openai',
    model_name: spec.model_name ?? 'gpt-4o',
    ...(spec.category ? { category: spec.category } : {}),
    ...(spec.confidence !== undefined ? { confidence: spec.confidence } : {}),
    summary: spec.summary ? spec.summary(i) : `finding ${i} in ${spec.category ?? 'code'}`,
    prompt_version: 'p1',
  }));
}
