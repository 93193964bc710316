/**
 * The vocabulary is declared once (contract/vocabulary.ts, decision 211): the lists derived
 * from the phase map hold every phase exactly once, and no caller keeps a list of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  isTerminal,
  isWorkPhase,
  OPERATION_STATUSES,
  OPERATION_TYPES,
  PHASE_NAMES,
  PHASES,
  TERMINAL_OPERATION_STATUSES,
  WORK_PHASES,
} from '../../contract/vocabulary.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the vocabulary', () => {
  it('lists every phase once: queued, then each type’s work phases and its done phase', () => {
    expect(PHASE_NAMES).toEqual(['queued', ...OPERATION_TYPES.flatMap((t) => [...PHASES[t].work, PHASES[t].done])]);
    expect(new Set(PHASE_NAMES).size).toBe(PHASE_NAMES.length);
  });

  it('derives the work phases from the map, so none is left out', () => {
    expect([...WORK_PHASES].sort()).toEqual(OPERATION_TYPES.flatMap((t) => PHASES[t].work).sort());
    expect(PHASE_NAMES.filter(isWorkPhase)).toEqual([...WORK_PHASES]);
  });

  it('names as terminal only statuses that exist, and the others as live', () => {
    expect(OPERATION_STATUSES.filter(isTerminal)).toEqual([...TERMINAL_OPERATION_STATUSES]);
    expect(OPERATION_STATUSES.filter((s) => !isTerminal(s))).toEqual(['queued', 'running']);
  });

  it('is the only list of terminal statuses: the dashboard and the client read it', () => {
    const sources = (dir: string): string[] =>
      readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : [],
      );
    // A list of terminal statuses spelled out: the three names together in one array literal.
    const ownList = /\[\s*'succeeded',\s*'failed',\s*'canceled'\s*\]/;
    expect([...sources('dashboard'), ...sources('client')].filter((f) => ownList.test(readFileSync(path.join(ROOT, f), 'utf8')))).toEqual(
      [],
    );
  });
});
