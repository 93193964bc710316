/**
 * The business metrics a whole run writes, read from what the functions wrote to stdout (as
 * CloudWatch reads a function's log group): a create on the simulated driver, failing its
 * infrastructure phase, through the local gateway and the real workflow on the local Step
 * Functions engine and DynamoDB Local.
 */

import { METRIC_SERVICE } from '../../contract/metric-catalogue.js';
import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import { createDeployment, operationReaches } from '../helpers/api.js';
import { emfIn } from '../helpers/emf.js';
import { createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

workflowsOn(simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: 'provisioning_infrastructure' }), { retryIntervalMs: 5 });

it('a failed simulated operation: OperationsStarted and OperationsFailed with its type, its finished phase’s duration, the request’s own', async () => {
  // Passes every line on to where it goes (this test file's log, scanned for secrets) and keeps a copy.
  const written = jest.spyOn(process.stdout, 'write');
  try {
    const { key } = await createKey();
    const res = await createDeployment(key, { app_type: 'airflow' });
    expect(res.status).toBe(202);
    await operationReaches(key, res.body.data.operation_id, ['failed']);
    const points = () => emfIn(written.mock.calls.map(([chunk]) => String(chunk)).join(''));
    const series = (name: string) => points().filter((p) => p.name === name);
    // The fail step writes its metrics as its invocation ends, after the operation is recorded failed.
    await eventually(async () => series('OperationsFailed').length > 0, 'the fail step’s OperationsFailed');
    expect(series('OperationsFailed')).toEqual([
      {
        namespace: 'DeploymentApi/local',
        name: 'OperationsFailed',
        unit: 'Count',
        dimensions: { service: METRIC_SERVICE, operation_type: 'deployment.create' },
        values: [1],
      },
    ]);
    expect(series('OperationsStarted').map((p) => [p.dimensions, p.values])).toEqual([
      [{ service: METRIC_SERVICE, operation_type: 'deployment.create' }, [1]],
    ]);
    expect(series('OperationsSucceeded')).toEqual([]);
    // provisioning_db finished before provisioning_infrastructure failed.
    expect(series('PhaseDuration').map((p) => [p.unit, p.dimensions])).toEqual([
      ['Seconds', { service: METRIC_SERVICE, operation_type: 'deployment.create', phase: 'provisioning_db' }],
    ]);
    expect(series('Requests').map((p) => p.dimensions)).toContainEqual({
      service: METRIC_SERVICE,
      route_group: 'deployments',
      status_class: '2xx',
    });
  } finally {
    written.mockRestore();
  }
});
