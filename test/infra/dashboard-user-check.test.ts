/**
 * Key management re-checks the signed-in user in the pool (app/dashboard-users.ts): the
 * three functions that create, rotate and revoke keys, and only those, may call AdminGetUser, on
 * the dashboard's user pool only.
 */
import { dashboardHandlerNames } from '../../contract/dashboard-routes.js';
import { actionsOf, flatten, logicalId, resourcesOf, stageOf, statementsOfRole } from './synth.js';

const s = stageOf({ stage: 'dev' });

it("grants cognito-idp:AdminGetUser on the pool's ARN to the dashboard functions that change things (keys, deployments) and to no other", () => {
  const poolArn = `<GetAtt:${logicalId(s.stack.dashboardUsers.pool)}.Arn>`;
  const granted: string[] = [];
  for (const f of s.stack.functions.all) {
    const statements = statementsOfRole(s.json, logicalId(f.fn.role!)).filter((st) =>
      actionsOf(st).some((a) => a.startsWith('cognito-idp:')),
    );
    for (const st of statements) {
      expect({ fn: f.name, actions: actionsOf(st), resources: resourcesOf(st).map(flatten) }).toEqual({
        fn: f.name,
        actions: ['cognito-idp:AdminGetUser'],
        resources: [poolArn],
      });
      expect((st as { Condition?: unknown }).Condition).toBeUndefined();
    }
    if (statements.length > 0) granted.push(f.name);
    expect({ fn: f.name, declared: f.access.users }).toEqual({
      fn: f.name,
      declared: statements.length > 0 ? ['AdminGetUser'] : [],
    });
  }
  // The functions that change something as the user (keys, and deployments: decision 146) re-check the user in the pool.
  expect(granted.sort()).toEqual([
    'dashboard-cancel-operation',
    'dashboard-change-hibernation',
    'dashboard-create-deployment',
    'dashboard-create-key',
    'dashboard-destroy-deployment',
    'dashboard-revoke-key',
    'dashboard-rollback-deployment',
    'dashboard-rotate-key',
    'dashboard-update-deployment',
  ]);
  expect(granted.every((name) => dashboardHandlerNames.includes(name))).toBe(true);
});
