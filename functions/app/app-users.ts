/**
 * App users (decisions 20 and 51): provisioned by an app_user.provision operation on a
 * ready deployment, with a password the request gives or the service makes. The password
 * is in the 202 answer and nowhere else the customer can read: the operation carries it
 * sealed (operation-input.ts) to the phase step that hands it to the driver, and the
 * answer kept for an Idempotency-Key replay is sealed too (middleware/idempotency.ts).
 */

import type { CreateAppUserBody } from '../../contract/schemas.js';
import { getDeployment } from '../adapters/dynamo/deployment-reads.js';
import { generatePassword } from '../core/app-user-password.js';
import { newOperationId } from '../core/operations.js';
import { type DeploymentOperationRequest, type Started, startOnReadyDeployment } from './deployment-commands.js';
import { sealInput } from './operation-input.js';

export async function provisionAppUser(
  req: DeploymentOperationRequest & { user: CreateAppUserBody },
): Promise<Started & { password: string }> {
  const { password: given, ...user } = req.user;
  const password = given ?? generatePassword();
  // Sealed for the operation it is written on, so the id is chosen first.
  const id = newOperationId();
  const sealed_input = await sealInput({ password }, req.orgId, id);
  const started = await startOnReadyDeployment(req, 'app_user.provision', () => undefined, { id, params: { ...user }, sealed_input });
  return { ...started, password };
}

/**
 * What an Idempotency-Key replay of the request may show (middleware/idempotency.ts): the
 * password only to the key that made the request, and only while the deployment is not
 * destroyed (decision 257).
 */
export const appUserReplay = {
  redact: (data: unknown): unknown => {
    const { initial_password: _password, ...rest } = data as { initial_password?: string };
    return rest;
  },
  stillExists: async (orgId: string, data: unknown): Promise<boolean> => {
    const id = (data as { deployment_id?: unknown }).deployment_id;
    if (typeof id !== 'string') return false;
    const d = await getDeployment(orgId, id, true);
    return d !== undefined && d.status !== 'destroyed';
  },
};
