/**
 * deployctl deployments health | metrics against the real local API server: the table and
 * the exit code scripts read (0 only when healthy), and the metrics as sparklines or JSON.
 */

import { sparkline } from '../../client/cli/commands/monitoring.js';
import { type CliContext, EXIT, runCli } from '../../client/cli/main.js';
import { readyDeployment } from '../helpers/api.js';
import { createKey } from '../helpers/fixtures.js';
import { localApi } from '../helpers/local-api.js';
import { conformanceCheckingFetch } from '../helpers/openapi-conformance.js';

const local = localApi();

async function deployctl(argv: string[], key: string): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const stream = {
    isTTY: false,
    write: (s: string) => {
      stdout += s;
      return true;
    },
  };
  const ctx: CliContext = {
    stdout: stream,
    stderr: { isTTY: false, write: () => true },
    env: { DEPLOY_API_KEY: key, DEPLOY_API_URL: local.baseUrl },
    fetch: conformanceCheckingFetch(),
    random: () => 1,
  };
  return { code: await runCli(argv, ctx), stdout };
}

describe('deployctl deployments health', () => {
  it('lists the components and exits 0 when healthy, 1 when not', async () => {
    const { key } = await createKey();
    const healthy = await readyDeployment(key, { app_type: 'superset' });
    const ok = await deployctl(['deployments', 'health', healthy.id], key);
    expect(ok.code).toBe(EXIT.ok);
    expect(ok.stdout).toMatch(/^Health: healthy since /);
    expect(ok.stdout).toMatch(/^COMPONENT\s+STATUS\s+SINCE\s+MESSAGE$/m);
    expect(ok.stdout).toMatch(/^metadata_db\s+healthy\s/m);
    const sick = await readyDeployment(key, { app_type: 'airflow', config: { env: { SIMULATE_UNHEALTHY: { value: 'triggerer' } } } });
    const degraded = await deployctl(['deployments', 'health', sick.id], key);
    expect(degraded.code).toBe(1);
    expect(degraded.stdout).toMatch(/^triggerer\s+unhealthy\s+\S+\s+The simulated triggerer is down/m);
    const json = await deployctl(['deployments', 'health', sick.id, '--json'], key);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'degraded' });
  });
});

describe('deployctl deployments metrics', () => {
  it('prints each metric asked with a sparkline, or the answer as JSON; refuses an unknown metric or range', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const text = await deployctl(['deployments', 'metrics', d.id, '--metric', 'cpu_utilization', '--since', '1d'], key);
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).toMatch(/one point per 300 s/);
    expect(text.stdout).toMatch(/^cpu_utilization \(percent\)/m);
    expect(text.stdout).not.toMatch(/^memory_utilization/m);
    const json = await deployctl(['deployments', 'metrics', d.id, '--json'], key);
    expect(JSON.parse(json.stdout)).toMatchObject({ period: 60, series: expect.any(Array) });
    expect((await deployctl(['deployments', 'metrics', d.id, '--metric', 'bogus'], key)).code).toBe(EXIT.usage);
    expect((await deployctl(['deployments', 'metrics', d.id, '--since', '2w'], key)).code).toBe(EXIT.usage);
  });

  it('draws a sparkline from the lowest block to the highest, the last values when there are more than fit', () => {
    expect(sparkline([0, 50, 100])).toBe('▁▄█');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparkline([1, 2, 3, 4], 2)).toBe('▆█');
  });
});

describe('deployctl deployments hibernate | wake (decision 50)', () => {
  it('hibernates with --wait, says "already" when there is nothing to do, and wakes with a hold', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    const slept = await deployctl(['deployments', 'hibernate', d.id, '--wait'], key);
    expect(slept.code).toBe(EXIT.ok);
    expect(slept.stdout).toBe(`Deployment ${d.name} (${d.id}) is hibernated.\n`);
    const again = await deployctl(['deployments', 'hibernate', d.id], key);
    expect(again).toEqual({ code: EXIT.ok, stdout: `Deployment ${d.name} (${d.id}) is already hibernated.\n` });
    const shown = await deployctl(['deployments', 'get', d.id], key);
    expect(shown.stdout).toMatch(/^hibernation:\s+hibernated$/m);
    const until = new Date(Date.now() + 3600_000).toISOString();
    const woken = await deployctl(['deployments', 'wake', d.id, '--until', until, '--wait', '--json'], key);
    expect(woken.code).toBe(EXIT.ok);
    expect(JSON.parse(woken.stdout).deployment.hibernation).toEqual({ state: 'awake', until });
    const bad = await deployctl(['deployments', 'wake', d.id, '--until', 'soon'], key);
    expect(bad.code).toBe(EXIT.usage);
  });
});
