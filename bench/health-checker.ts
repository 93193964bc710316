/**
 * The health checker's throughput on the local engine (decisions 48, 246): N ready, healthy
 * airflow deployments in a fresh in-memory DynamoDB Local, then one round of checkAll at
 * each concurrency, in one process ("one worker"). Every visit finds nothing changed, so
 * each is the Query and the UpdateItem of checked_at. `npx tsx bench/health-checker.ts [N]`.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamoLocal } from '../local/dynamodb-local.js';
import { freePort } from '../test/helpers/local-process.js';

const N = Number(process.argv[2] ?? 500);
const port = await freePort();
const dynamo = await startDynamoLocal(port, null);
process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
process.env.AWS_REGION = 'us-east-1';
process.env.AWS_ACCESS_KEY_ID = 'x';
process.env.AWS_SECRET_ACCESS_KEY = 'x';
process.env.TABLE_NAME = 'bench';
await ensureTable(dynamo.endpoint, 'bench');
// The SDK client reads its endpoint when its module loads: after the variables above.
const { ddb } = await import('../functions/adapters/dynamo/client.js');
const { deploymentItem } = await import('../functions/adapters/dynamo/items.js');
const { healthItem } = await import('../functions/adapters/dynamo/health-store.js');
const { newDeploymentRecord } = await import('../functions/core/deployments.js');
const { checkAll } = await import('../functions/app/deployment-health.js');
const { applyCheck, unknownHealth, HEALTH_COMPONENTS } = await import('../functions/core/health.js');

const at = new Date(Date.now() - 120_000).toISOString();
const items: Record<string, unknown>[] = [];
for (let i = 0; i < N; i++) {
  const org = `org-${i % 50}`;
  const d = {
    ...newDeploymentRecord({ org_id: org, name: `d${i}`, app_type: 'airflow', environment_id: 'env_default' }, at, 'op_x'),
    status: 'ready' as const,
    in_flight: [],
  };
  const detail = applyCheck(
    unknownHealth(at),
    HEALTH_COMPONENTS.airflow.map((name) => ({ name, status: 'healthy' as const, message: null })),
    at,
  ).detail;
  items.push(deploymentItem({ ...d, health: { status: detail.status, since: detail.since } }, i + 1), healthItem(org, d.id, detail, true));
}
for (let i = 0; i < items.length; i += 25)
  await ddb.send(new BatchWriteCommand({ RequestItems: { bench: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));

for (const concurrency of [1, 16, 64]) {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const round = await checkAll({ concurrency });
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // This process's CPU per visit (the SDK, the rules): what a Lambda function pays, DynamoDB Local's own excluded.
  const cpuMsPerVisit = +((cpu.user + cpu.system) / 1000 / round.checked).toFixed(2);
  console.log(
    JSON.stringify({
      concurrency,
      checked: round.checked,
      results: round.results,
      seconds: +s.toFixed(2),
      perSecond: +(round.checked / s).toFixed(0),
      cpuMsPerVisit,
    }),
  );
}
await dynamo.stop();
process.exit(0);
