/**
 * The local stand-ins for the AWS services the local host has no engine for, plugged
 * into the ports the handlers use (the Lambda defaults are SQS and KMS). Every process
 * that runs handler modules locally does this where it starts: `npm start`, `npm run
 * invoke`, the benchmark and the tests.
 */
import type { DeliveryQueue } from '../../functions/core/delivery-queue.js';
import type { SecretSealer } from '../../functions/core/secret-sealer.js';
import { inject } from '../../functions/lib/injectable.js';
import { aesSealer } from './aes-sealer.js';
import { tableDeliveryQueue } from './table-queue.js';

export interface StandIns {
  queue: DeliveryQueue;
  sealer: SecretSealer;
}

/** The delivery queue kept in the table, and AES-GCM sealing under `secretKey` (base64, 32 bytes). */
export const localStandIns = (secretKey: string): StandIns => ({ queue: tableDeliveryQueue, sealer: aesSealer(secretKey) });

/** Plugs them in; the AWS implementations are then never loaded or made. */
export function useStandIns({ queue, sealer }: StandIns): void {
  inject('DeliveryQueue', queue);
  inject('SecretSealer', sealer);
}
