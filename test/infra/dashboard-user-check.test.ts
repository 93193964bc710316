/**
 * Key management re-checks the signed-in user in the pool (app/dashboard-users.ts): the
 * two functions that create and revoke keys, and only those, may call AdminGetUser, on
 * the dashboard's user pool only.
 */
import { dashboardHandlerNames } from '../../functions/dashboard-routes.js';
import { actionsOf, flatten, logicalId, resourcesOf, stageOf, statementsOfRole } from './synth.js';

const s = stageOf({ stage: 'dev' });

it("grants cognito-idp:AdminGetUser on the pool's ARN to the key-management functions and to no other", () => {
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
  expect(granted.sort()).toEqual(['dashboard-create-key', 'dashboard-revoke-key']);
  expect(granted.every((name) => dashboardHandlerNames.includes(name))).toBe(true);
});
