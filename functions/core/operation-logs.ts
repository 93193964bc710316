/**
 * An operation's log (decision 45): numbered lines, oldest first, that explain what it
 * did. The workflow's own lines follow from its transitions (here); the platform's come
 * from its driver's `check` (core/platform.ts) and pass through `redact` first.
 */

import type { LogLevel, Phase } from '../../contract/schemas.js';
import { type OperationChange, type OperationRecord, PHASE_MESSAGES } from './operations.js';

/** A line before it is numbered: the store gives it its sequence and time (adapters/dynamo/operation-update.ts). */
export interface NewLogLine {
  phase: Phase;
  level: LogLevel;
  message: string;
  /** When the platform says it happened; the stored time is never earlier than the line before. */
  time?: string;
}

/** A stored line, as the API shows it. */
export interface LogLineRecord {
  sequence: number;
  time: string;
  phase: Phase;
  level: LogLevel;
  message: string;
}

/**
 * The lines a transition of the operation writes: entering a phase after `queued`
 * (`info`), failing (`error`, the error's message), being canceled (`warning`).
 */
export function transitionLines(op: Pick<OperationRecord, 'phase' | 'status'>, change: OperationChange): NewLogLine[] {
  const phase = change.phase ?? op.phase;
  const lines: NewLogLine[] = [];
  if (change.phase && change.phase !== op.phase && change.phase !== 'queued')
    lines.push({ phase, level: 'info', message: PHASE_MESSAGES[change.phase] });
  if (change.status === 'failed' && op.status !== 'failed' && change.error)
    lines.push({ phase, level: 'error', message: change.error.message });
  if (change.status === 'canceled' && op.status !== 'canceled')
    lines.push({ phase, level: 'warning', message: change.message ?? 'The operation was canceled.' });
  return lines;
}

/** What stands for a secret value found in a platform's text. */
export const REDACTED = '[secret]';

/**
 * A platform's text with every secret value of the configuration it ran replaced
 * (decision 41: a secret value never appears in an operation log). Longer values first,
 * so a secret that contains another is replaced whole.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((v) => v.length > 0).sort((a, b) => b.length - a.length)) out = out.split(s).join(REDACTED);
  return out;
}

/** The longest line stored: a page of 100 lines stays far below a Query's 1 MB. */
export const MAX_LINE_CHARS = 2000;

/** A platform's line as stored: secrets replaced, cut to MAX_LINE_CHARS. */
export const platformText = (text: string, secrets: readonly string[]): string => {
  const clean = redact(text, secrets);
  return clean.length > MAX_LINE_CHARS ? `${clean.slice(0, MAX_LINE_CHARS - 1)}…` : clean;
};

/** The most lines one check of a phase stores: one transaction holds them and the operation (DynamoDB: 100 items). */
export const LINES_PER_CHECK = 25;
