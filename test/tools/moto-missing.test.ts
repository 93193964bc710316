/**
 * `npm run test:aws-api` on a machine without moto (test/aws-api/moto.ts): starting a
 * moto_server that is not on the PATH fails with the one line that says how to install it,
 * which the suite's global setup prints alone.
 */

import { startAwsTwin, TWIN_MOTO_MISSING } from '../../local/aws-twin/twin.js';
import { MOTO_MISSING, MotoMissingError, startMoto } from '../aws-api/moto.js';
import { freePort } from '../helpers/local-process.js';

it('reports a missing moto_server as MotoMissingError, with the install command', async () => {
  const failure = await startMoto(await freePort(), 'moto_server-not-installed').catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(MotoMissingError);
  expect((failure as Error).message).toBe(MOTO_MISSING);
  expect(MOTO_MISSING).toContain("pip install 'moto[server]'");
  expect(MOTO_MISSING).not.toContain('\n');
});

it('PLATFORM=ecs npm start without moto_server stops with one line naming what to install', async () => {
  const failure = await startAwsTwin({ domain: 'apps.test', command: 'moto_server-not-installed' }).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(MotoMissingError);
  expect((failure as Error).message).toBe(TWIN_MOTO_MISSING);
  expect(TWIN_MOTO_MISSING).toContain("pip install 'moto[server]'");
  expect(TWIN_MOTO_MISSING).not.toContain('\n');
});
