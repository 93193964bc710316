/**
 * The ASL files in statemachines/ and their placeholders, read the same way by the CDK
 * stack and the local host. A Task's `${XyzFunctionArn}` placeholder names the Lambda
 * handler `functions/workflow/<xyz>.ts`: that naming is the one link between the two.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const STATE_MACHINES_DIR = path.resolve(import.meta.dirname, '../statemachines');

export interface StateMachineFile {
  /** File name without `.asl.json`; also the state machine's name. */
  name: string;
  file: string;
  text: string;
  /** Placeholder (e.g. StartPhaseFunctionArn) → workflow handler module (e.g. start-phase). */
  functions: Record<string, string>;
}

const PLACEHOLDER = /\$\{([A-Za-z0-9]+)FunctionArn\}/g;

const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

export function stateMachineFiles(dir = STATE_MACHINES_DIR): StateMachineFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.asl.json'))
    .sort()
    .map((f) => {
      const file = path.join(dir, f);
      const text = readFileSync(file, 'utf8');
      const functions: Record<string, string> = {};
      for (const m of text.matchAll(PLACEHOLDER)) functions[`${m[1]}FunctionArn`] = kebab(m[1]!);
      return { name: f.replace(/\.asl\.json$/, ''), file, text, functions };
    });
}

/** Fills `${Name}` placeholders; an unknown placeholder is an error, not a silent blank. */
export function substitute(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z0-9]+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`No value for placeholder \${${name}}`);
    return v;
  });
}
