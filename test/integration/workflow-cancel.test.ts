/**
 * Cancel mid-way: the workflow is held inside a phase by a gated platform while the
 * API's cancel runs; the StopExecution reaches this file's own local engine.
 */
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { getOperation } from '../../functions/adapters/dynamo/operation-reads.js';
import { cancelOperation } from '../../functions/app/deployment-commands.js';
import { startSfnEndpoint } from '../../infra/local/sfn-endpoint.js';
import { engineWith, recordsFor, startExecution, testPlatform } from '../helpers/workflow-harness.js';

describe('cancel mid-way', () => {
  let endpoint: Awaited<ReturnType<typeof startSfnEndpoint>>;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { platform, calls } = testPlatform(undefined, gate);
  const engine = engineWith(platform);

  beforeAll(async () => {
    endpoint = await startSfnEndpoint(engine);
    process.env.AWS_ENDPOINT_URL_SFN = endpoint.endpoint; // cancelOperation's StopExecution reaches this engine
  });
  afterAll(async () => {
    release();
    await engine.settled();
    await endpoint.close();
  });

  it('ends the operation canceled; the phase still running cannot overwrite it; later phases never run', async () => {
    const { op, deploymentId, orgId } = await recordsFor('deployment.create');
    const { executionArn } = startExecution(engine, op);
    const deadline = Date.now() + 10_000;
    while (!calls.includes('provisioning_infrastructure')) {
      if (Date.now() > deadline) throw new Error('workflow never reached provisioning_infrastructure');
      await new Promise((r) => setTimeout(r, 10));
    }
    const canceled = await cancelOperation(orgId, op.id, new Date());
    expect(canceled).toMatchObject({ status: 'canceled', progress: { phase: 'provisioning_infrastructure' } });
    expect(engine.describe({ executionArn }).status).toBe('ABORTED');
    release();
    await engine.settled();
    await new Promise((r) => setTimeout(r, 50)); // let the released step's own write attempt finish (it must be refused)
    expect((await getOperation(orgId, op.id, true))!).toMatchObject({ status: 'canceled', phase: 'provisioning_infrastructure' });
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe('failed');
    expect(calls).toEqual(['provisioning_db', 'provisioning_infrastructure']);
  });
});
