/**
 * The port for the secret new API keys are signed with (api-keys.ts): read once per
 * process and kept, so verifying a key costs no call. On AWS a Secrets Manager secret
 * (adapters/secrets-manager/); locally a key kept under DATA_DIR (local/stand-ins.ts).
 */
export interface KeySigningSecret {
  /** At least 32 bytes. */
  read(): Promise<Buffer>;
}

/** The bytes of a base64 secret, refused when shorter than 32. */
export function signingSecretBytes(raw: string | undefined, where: string): Buffer {
  const bytes = raw ? Buffer.from(raw, 'base64') : undefined;
  if (!bytes || bytes.length < 32) throw new Error(`${where} must hold at least 32 bytes, base64-encoded.`);
  return bytes;
}
