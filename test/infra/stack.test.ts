/** The stack's outputs (infra/aws/stack.ts). */
import { API_PREFIX } from '../../contract/routes.js';
import { escapeRegExp, flatten, logicalId, stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('outputs', () => {
  it('outputs ApiUrl ending in /api/v1, TableName and StateMachineArn', () => {
    const out = s.json.Outputs!;
    expect(flatten(out.ApiUrl!.Value)).toMatch(
      new RegExp(
        `^https://<Ref:[A-Za-z0-9]+>\\.execute-api\\.<Ref:AWS::Region>\\.<Ref:AWS::URLSuffix>/<Ref:[A-Za-z0-9]+>${escapeRegExp(API_PREFIX)}$`,
      ),
    );
    expect(out.TableName!.Value).toEqual({ Ref: logicalId(s.stack.data.table) });
    expect(out.StateMachineArn!.Value).toEqual({ Ref: logicalId(s.stack.workflow.stateMachine) });
  });
});
