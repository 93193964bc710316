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

/** What stands for a platform's text that is withheld: the same words whatever it held. */
export const WITHHELD = "[withheld: the platform's text may hold a secret value of the configuration]";

/**
 * A secret shorter than this turns up in ordinary text by chance (`a` in "configuration"),
 * so whether a line holds it says nothing of a leak and much of the secret: with one, every
 * platform text of the operation is withheld, whatever it says (decision 231).
 */
export const MIN_SEARCHED_SECRET_CHARS = 12;

/**
 * A platform's text, or WITHHELD in its place (decision 41: a secret value never appears in
 * an operation log; decision 231: nor its length or where it was). A text is never shown
 * in part: one that holds any secret value of the configuration is withheld whole, and all
 * are withheld while the configuration holds a secret too short to search for.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const searched = secrets.filter((s) => s.length > 0);
  if (searched.some((s) => s.length < MIN_SEARCHED_SECRET_CHARS || text.includes(s))) return WITHHELD;
  return text;
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
