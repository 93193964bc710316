/**
 * The local stand-ins for the AWS services the local host has no engine for, plugged
 * into the ports the handlers use (the Lambda defaults are SQS, KMS and Secrets Manager). Every process
 * that runs handler modules locally does this where it starts: `npm start`, `npm run
 * invoke`, the benchmark and the tests.
 */

import { ddb } from '../functions/adapters/dynamo/client.js';
import type { DeliveryQueue } from '../functions/core/delivery-queue.js';
import { type KeySigningSecret, signingSecretBytes } from '../functions/core/key-signing.js';
import type { SecretSealer } from '../functions/core/secret-sealer.js';
import { inject } from '../functions/lib/injectable.js';
import { aesSealer } from './aes-sealer.js';
import { lockTimeoutsAsConflicts } from './dynamodb-local-conflicts.js';
import { tableDeliveryQueue } from './table-queue.js';

export interface StandIns {
  queue: DeliveryQueue;
  sealer: SecretSealer;
  signing: KeySigningSecret;
}

/** API_KEY_SECRET, which the host sets where it starts (env.ts applyLocalEnv keeps it under DATA_DIR). */
const envSigningSecret: KeySigningSecret = { read: async () => signingSecretBytes(process.env.API_KEY_SECRET, 'API_KEY_SECRET') };

/** The delivery queue kept in the table, and AES-GCM sealing under `secretKey` (base64, 32 bytes). */
export const localStandIns = (secretKey: string): StandIns => ({
  queue: tableDeliveryQueue,
  sealer: aesSealer(secretKey),
  signing: envSigningSecret,
});

/**
 * Plugs them in; the AWS implementations are then never loaded or made. DynamoDB Local's
 * lock timeouts reach the handlers as the conflicts DynamoDB would answer (decision 330).
 */
export function useStandIns({ queue, sealer, signing }: StandIns): void {
  lockTimeoutsAsConflicts(ddb);
  inject('DeliveryQueue', queue);
  inject('SecretSealer', sealer);
  inject('KeySigningSecret', signing);
}
