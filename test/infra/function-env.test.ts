/**
 * Each function's environment (infra/aws/function-env.ts): the settings, and a resource's name only
 * where the function may use it.
 */
import { usesTable } from '../../infra/aws/function-access.js';
import { flatten, fnId, logicalId, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('functions', () => {
  it('get the environment from function-env: TABLE_NAME only with table access, STATE_MACHINE_ARN only with Step Functions access', () => {
    for (const f of s.stack.functions.all) {
      const env = s.json.Resources[fnId(s, f.name)]!.Properties?.Environment.Variables as Record<string, unknown>;
      expect(env).toMatchObject({
        APP_DOMAIN: 'apps.example.com',
        PHASE_DELAY_MS: '2000',
        RATE_LIMIT_PER_HOUR: '1000',
        RATE_LIMIT_PER_MINUTE: '100',
        CREATE_LIMIT_PER_HOUR: '10',
        PHASE_TIMEOUT_SECONDS: '21600',
        // Every log line's and metric's service, and the stage's metric namespace (contract/metric-catalogue.ts).
        POWERTOOLS_SERVICE_NAME: 'deployment-api',
        POWERTOOLS_METRICS_NAMESPACE: 'DeploymentApi/dev',
      });
      // Source maps are read when an error is logged, not at every cold start (functions/lib/source-stack.ts).
      expect(env.NODE_OPTIONS).toBeUndefined();
      expect(flatten(env.TABLE_NAME)).toBe(usesTable(f.access) ? `<Ref:${logicalId(s.stack.data.table)}>` : 'undefined');
      expect(flatten(env.STATE_MACHINE_ARN)).toBe(
        f.access.states.length ? `<Ref:${logicalId(s.stack.workflow.stateMachine)}>` : 'undefined',
      );
      expect(env.WEBHOOK_ALLOW_INSECURE).toBe('false');
      expect(flatten(env.DELIVERY_QUEUE_URL)).toBe(f.access.queue.length ? `<Ref:${logicalId(s.stack.webhooks.queue)}>` : 'undefined');
      expect(flatten(env.WEBHOOK_KMS_KEY_ID)).toBe(f.access.kms.length ? `<GetAtt:${logicalId(s.stack.webhooks.key)}.Arn>` : 'undefined');
    }
  });
});
