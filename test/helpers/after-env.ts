/**
 * Every test file gets the real ASL workflows behind a local Step Functions endpoint,
 * so handlers that start executions run exactly as under `npm start`.
 */
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { LocalStepFunctions, startSfnEndpoint } from '../../infra/local/sfn-endpoint.js';

export const stepFunctions = new LocalStepFunctions({ retryIntervalMs: 5 });
let endpoint: Awaited<ReturnType<typeof startSfnEndpoint>> | undefined;

beforeAll(async () => {
  endpoint = await startSfnEndpoint(stepFunctions);
  process.env.AWS_ENDPOINT_URL_SFN = endpoint.endpoint;
});

afterAll(async () => {
  await stepFunctions.settled();
  await endpoint?.close();
  // Close the SDK's keep-alive sockets so jest exits cleanly.
  ddb.destroy();
});
