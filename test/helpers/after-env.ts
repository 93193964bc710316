/**
 * Every test file gets the real ASL workflows behind a local Step Functions endpoint,
 * so handlers that start executions run exactly as under `npm start`.
 */
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { LocalStepFunctions, startSfnEndpoint } from '../../local/sfn-endpoint.js';
import { localStandIns, useStandIns } from '../../local/stand-ins.js';
import { checkGrants, judged, judgedStandIns, reportJudged } from './grant-check.js';

// The local stand-ins, as under npm start, each call judged against the calling function's grants.
useStandIns(judgedStandIns(localStandIns(process.env.WEBHOOK_SECRET_KEY!)));

export const stepFunctions = new LocalStepFunctions({ retryIntervalMs: 5 });
let endpoint: Awaited<ReturnType<typeof startSfnEndpoint>> | undefined;

beforeAll(async () => {
  checkGrants();
  endpoint = await startSfnEndpoint(stepFunctions);
  process.env.AWS_ENDPOINT_URL_SFN = endpoint.endpoint;
});

afterAll(async () => {
  await stepFunctions.settled();
  await endpoint?.close();
  // What the functions of this file sent that their AWS roles would refuse (test/helpers/grant-check.ts).
  reportJudged(expect.getState().testPath ?? 'unknown');
  if (judged.refused.length)
    throw new Error(`IAM would refuse ${judged.refused.length} requests:\n${[...new Set(judged.refused)].slice(0, 30).join('\n')}`);
  // Close the SDK's keep-alive sockets so jest exits cleanly.
  ddb.destroy();
});
