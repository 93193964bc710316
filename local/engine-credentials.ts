/**
 * The local stack's own AWS credentials (decision 236). DynamoDB Local, the Step Functions
 * endpoint and the emulated user pool's admin actions would otherwise answer any account
 * on the machine. Each `npm start` makes a random pair, hands it to its handlers, and
 * writes it to its 0600 stack file for the operator tools; the engines accept a request
 * only when its SigV4 Authorization names that access key id. Loopback traffic is not
 * readable by other users, so the id works as the shared secret; the signature itself is
 * not verified.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export interface EngineCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A fresh pair: an id shaped like AWS's (20 characters, `ASIA`-style prefix `LOCL`), 120 random bits in it. */
export function newEngineCredentials(): EngineCredentials {
  return {
    accessKeyId: `LOCL${randomBytes(15)
      .toString('base64url')
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, 'X')
      .slice(0, 16)}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
}

/** Whether a request's Authorization header is SigV4 by `accessKeyId` (compared in constant time). */
export function signedBy(authorization: string | string[] | undefined, accessKeyId: string): boolean {
  const header = Array.isArray(authorization) ? authorization[0] : authorization;
  const given = /Credential=([^/,\s]+)\//.exec(header ?? '')?.[1];
  if (given === undefined || given.length !== accessKeyId.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(accessKeyId));
}

/** The error body AWS gives for an unknown access key id, in the JSON protocols' shape. */
export const REFUSED = {
  __type: 'UnrecognizedClientException',
  message: 'The security token included in the request is invalid: this engine belongs to another npm start.',
};
