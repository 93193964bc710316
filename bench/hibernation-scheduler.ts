/**
 * The hibernation scheduler at scale on the local engine (decisions 50, 260, 310): N
 * deployments due at one minute and N/2 due an hour later, in a fresh in-memory DynamoDB
 * Local, the real workflow engine behind a local Step Functions endpoint, all in one
 * process. Measures a round at a minute with nothing due, finding the busy minute's
 * deployments alone, and the busy minute's round (every operation started), with their
 * DynamoDB calls and consumed capacity.
 * `npx tsx bench/hibernation-scheduler.ts [N] [orgs] [concurrency] [parked|run]`.
 */
import './env.js';
import { randomBytes } from 'node:crypto';
import { stateMachineFiles } from '../infra/state-machines.js';
import { ensureTable, startDynamoLocal } from '../local/dynamodb-local.js';
import { LocalStepFunctions, localStateMachineArn, startSfnEndpoint } from '../local/sfn-endpoint.js';
import { localStandIns, useStandIns } from '../local/stand-ins.js';
import { freePort } from '../test/helpers/local-process.js';

const N = Number(process.argv[2] ?? 10_000);
const ORGS = Number(process.argv[3] ?? 500);
const CONCURRENCY = Number(process.argv[4] ?? 64);
const NOT_DUE = Math.round(N / 2);
/**
 * `parked` (the default): each execution starts through the engine's real StartExecution
 * and then waits in its first step until the end, as on AWS, where the executions run
 * elsewhere; `run`: each runs its first step at once in this process, as under npm start.
 */
const EXECUTIONS = process.argv[5] === 'run' ? 'run' : 'parked';

const port = await freePort();
const dynamo = await startDynamoLocal(port, null);
const parked = new Promise<never>(() => {});
const steps = stateMachineFiles().flatMap((f) => Object.values(f.functions));
const engine = new LocalStepFunctions({
  // Run: every execution then parks in its first Wait once its first step has run.
  waitMs: 600_000,
  ...(EXECUTIONS === 'parked' ? { handlers: Object.fromEntries(steps.map((s) => [s, () => parked])) } : {}),
});
const sfn = await startSfnEndpoint(engine);
Object.assign(process.env, {
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  AWS_ENDPOINT_URL_SFN: sfn.endpoint,
  STATE_MACHINE_ARN: localStateMachineArn('operation'),
});
await ensureTable(dynamo.endpoint, process.env.TABLE_NAME!);
useStandIns(localStandIns(randomBytes(32).toString('base64')));
// The SDK clients read their endpoints when first used, after the variables above.
const { BUSY_MINUTE, findDue, installCapacityMeter, metering, scheduledRound, seedScheduled } = await import('./hibernation-round.js');

const t0 = performance.now();
const seeded = await seedScheduled({ due: N, notDue: NOT_DUE, orgs: ORGS });
console.log(
  `seeded ${N} due and ${NOT_DUE} due an hour later over ${ORGS} organizations in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
);
installCapacityMeter();

const show = (label: string, r: Awaited<ReturnType<typeof metering>>, extra: Record<string, unknown> = {}) =>
  console.log(
    JSON.stringify({
      label,
      seconds: +(r.ms / 1000).toFixed(2),
      ...extra,
      calls: r.cost.calls,
      byCommand: r.cost.byCommand,
      msByCommand: r.cost.msByCommand,
      itemsQueried: r.cost.itemsQueried,
      readUnits: +r.cost.readUnits.toFixed(1),
      writeUnits: +r.cost.writeUnits.toFixed(1),
    }),
  );

// A minute with nothing due: the round's whole cost when the fleet sleeps.
const quiet = await metering(() => scheduledRound(BUSY_MINUTE - 60_000, { concurrency: CONCURRENCY }));
show('quiet minute round', quiet, { due: quiet.value.due });

// Finding alone, twice (the first warms DynamoDB Local's index pages).
for (const pass of [1, 2]) {
  const found = await metering(() => findDue(BUSY_MINUTE));
  show(`find due (pass ${pass})`, found, { found: found.value });
}

// The busy minute, the round starting a second into it, as npm start runs it.
const cpu0 = process.cpuUsage();
const busy = await metering(() => scheduledRound(BUSY_MINUTE, { offsetMs: 1_000, concurrency: CONCURRENCY }));
const cpu = process.cpuUsage(cpu0);
show('busy minute round', busy, {
  due: busy.value.due,
  results: busy.value.results,
  concurrency: CONCURRENCY,
  executions: EXECUTIONS,
  lastStartAfterMinuteS: +(1 + busy.ms / 1000).toFixed(2),
  perVisitMs: +(busy.ms / busy.value.due).toFixed(2),
  processCpuMsPerVisit: +((cpu.user + cpu.system) / 1000 / busy.value.due).toFixed(2),
  perVisit: {
    calls: +(busy.cost.calls / busy.value.due).toFixed(2),
    readUnits: +(busy.cost.readUnits / busy.value.due).toFixed(2),
    writeUnits: +(busy.cost.writeUnits / busy.value.due).toFixed(2),
  },
});
console.log(JSON.stringify({ seededDue: seeded.due.length, seededNotDue: seeded.notDue.length }));
engine.stopAll('benchmark over');
await sfn.close();
await dynamo.stop();
process.exit(0);
