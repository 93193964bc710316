/**
 * The ports the process is given an implementation of, by name. On Lambda each is the
 * AWS one, made at first use; a local host injects its stand-ins by these names where it
 * starts (lib/injectable.ts), without loading the AWS implementations.
 */
import type { DeliveryQueue } from './delivery-queue.js';
import type { KeySigningSecret } from './key-signing.js';
import type { HostingPlatform } from './platform.js';
import type { SecretSealer } from './secret-sealer.js';

export interface Ports {
  DeliveryQueue: DeliveryQueue;
  SecretSealer: SecretSealer;
  HostingPlatform: HostingPlatform;
  KeySigningSecret: KeySigningSecret;
}
