/** lib/config.ts: the variables read from their text, their defaults, and a misconfiguration refused at cold start. */
import { CONFIG_DEFAULTS, readConfig } from '../../functions/lib/config.js';

it('takes the defaults for what is not set, and reads numbers and the issuer from their text', () => {
  const c = readConfig({});
  expect(c).toMatchObject({ tableName: CONFIG_DEFAULTS.TABLE_NAME, phaseDelayMs: 2000, limits: { perMinute: 100 } });
  expect(c.dashboard.issuer).toBeUndefined();
  const set = readConfig({
    PHASE_DELAY_MS: '0',
    RATE_LIMIT_PER_MINUTE: '7',
    DASHBOARD_TOKEN_ISSUER: 'https://cognito-idp.eu-west-1.amazonaws.com/pool',
  });
  expect(set).toMatchObject({
    phaseDelayMs: 0,
    limits: { perMinute: 7 },
    dashboard: { issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/pool' },
  });
});

it.each([
  [{ RATE_LIMIT_PER_MINUTE: 'ten' }, 'RATE_LIMIT_PER_MINUTE'],
  [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE'],
  [{ PHASE_DELAY_MS: '1.5' }, 'PHASE_DELAY_MS'],
  [{ PHASE_DELAY_MS: '-1' }, 'PHASE_DELAY_MS'],
  [{ DASHBOARD_TOKEN_ISSUER: 'not a url' }, 'DASHBOARD_TOKEN_ISSUER'],
  [{ APP_VERSIONS: '{"airflow":[]}' }, 'APP_VERSIONS'],
])('refuses %j, naming the variable', (env, name) => {
  expect(() => readConfig(env)).toThrow(new RegExp(`^Invalid configuration: .*${name}`));
});
