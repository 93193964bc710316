/**
 * App user passwords (decision 51): the one the service makes when a request gives none.
 * 24 characters of letters and digits from the CSPRNG: about 143 bits.
 */
import { randomBytes } from 'node:crypto';

export const PASSWORD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const GENERATED_PASSWORD_LENGTH = 24;

/**
 * The largest multiple of the alphabet's size a byte reaches: a byte at or above it is
 * drawn again, so each character is equally likely (a plain `byte % 62` would favour the
 * first 8 characters, decision 255).
 */
const ACCEPT_BELOW = 256 - (256 % PASSWORD_ALPHABET.length);

/** A fresh password; `random` is the CSPRNG, replaceable only to test the rejection of high bytes. */
export function generatePassword(length = GENERATED_PASSWORD_LENGTH, random: (n: number) => Uint8Array = randomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random(length - out.length + 8)) {
      if (byte >= ACCEPT_BELOW) continue;
      out += PASSWORD_ALPHABET[byte % PASSWORD_ALPHABET.length];
      if (out.length === length) break;
    }
  }
  return out;
}
