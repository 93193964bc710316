/**
 * A headless Chromium for the page tests that needs nothing outside npm: Debian's
 * /usr/bin/chromium when the machine has one (or CHROMIUM_PATH), else the binary that
 * ships inside the npm package @sparticuz/chromium, unpacked once to the temp folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
// Headless, and nothing that phones home (the machine has no network to reach).
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function executablePath(): string {
  const chosen = process.env.CHROMIUM_PATH ?? (existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : undefined);
  if (chosen) return chosen;
  // The package is ES modules only (import.meta.url), so a real Node process unpacks it, not jest.
  return execFileSync(
    process.execPath,
    ['--input-type=module', '-e', "import c from '@sparticuz/chromium'; process.stdout.write(await c.executablePath())"],
    {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
    },
  );
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: executablePath(), args: ARGS });
}
