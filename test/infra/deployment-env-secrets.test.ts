/**
 * A deployment's env secrets (decision 41) are sealed with KMS for the purpose
 * `deployment-env`: of every role in the stack, only the workflow's start-phase step (to
 * hand the configuration to the platform driver) and its check-phase step (to keep the
 * values out of the driver's log lines, decision 136) may decrypt for it, and nothing may
 * decrypt without naming a purpose.
 */
import { actionsOf, logicalId, policiesOf, type Statement, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

/** Every policy statement of the template, with the logical id of the policy's roles. */
function statements(): { roles: string[]; statement: Statement }[] {
  return policiesOf(s.json).flatMap(({ roles, statements }) => statements.map((statement) => ({ roles, statement })));
}

const decrypts = () => statements().filter(({ statement }) => actionsOf(statement).some((a) => a === 'kms:Decrypt' || a === 'kms:*'));

describe('deployment-env secrets', () => {
  it('every kms:Decrypt is bound to one purpose', () => {
    expect(decrypts().length).toBeGreaterThan(0);
    for (const { statement } of decrypts()) {
      const purpose = (statement as { Condition?: { StringEquals?: Record<string, string> } }).Condition?.StringEquals?.[
        'kms:EncryptionContext:purpose'
      ];
      expect(typeof purpose).toBe('string');
    }
  });

  it('only the start-phase and check-phase steps may decrypt the deployment-env purpose', () => {
    const roleIds = (['start-phase', 'check-phase'] as const).map((n) => logicalId(s.stack.functions.get(n).fn.role!)).sort();
    const forEnv = decrypts().filter(
      ({ statement }) =>
        (statement as { Condition?: { StringEquals?: Record<string, string> } }).Condition?.StringEquals?.[
          'kms:EncryptionContext:purpose'
        ] === 'deployment-env',
    );
    expect(forEnv.flatMap((d) => d.roles).sort()).toEqual(roleIds);
  });
});
