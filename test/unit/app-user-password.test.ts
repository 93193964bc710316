/** Decision 51 and 255: the password the service makes: 24 letters and digits, every character equally likely. */
import { GENERATED_PASSWORD_LENGTH, generatePassword, PASSWORD_ALPHABET } from '../../functions/core/app-user-password.js';

describe('generatePassword', () => {
  it('makes 24 letters and digits, a different one each time', () => {
    const made = Array.from({ length: 200 }, () => generatePassword());
    for (const p of made) expect(p).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(new Set(made).size).toBe(made.length);
    expect(GENERATED_PASSWORD_LENGTH).toBe(24);
    expect(PASSWORD_ALPHABET).toHaveLength(62);
  });

  it('draws again for the bytes a modulo would bias (248-255), so each character gets exactly 4 of the 248 others', () => {
    // Every byte value once: 248..255 must be skipped, 0..247 map 4 to each of the 62 characters.
    let next = 0;
    const everyByte = (n: number) => Uint8Array.from({ length: n }, () => next++ % 256);
    const p = generatePassword(248, everyByte);
    const counts = new Map<string, number>();
    for (const c of p) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join('')).toBe([...PASSWORD_ALPHABET].sort().join(''));
    expect(new Set(counts.values())).toEqual(new Set([4]));
  });

  it('skips high bytes rather than wrapping them: all-255 input is drawn again until a usable byte comes', () => {
    const batches = [new Uint8Array(40).fill(255), Uint8Array.from({ length: 40 }, (_, i) => i)];
    const p = generatePassword(24, () => batches.shift() ?? new Uint8Array(40));
    expect(p).toBe(PASSWORD_ALPHABET.slice(0, 24));
  });

  it('is spread evenly over the alphabet from the CSPRNG (chi-square, 62 × 1000 draws)', () => {
    const text = Array.from({ length: 62_000 / 24 + 1 }, () => generatePassword())
      .join('')
      .slice(0, 62_000);
    const counts = new Map<string, number>();
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    const chi = [...PASSWORD_ALPHABET].reduce((sum, c) => sum + ((counts.get(c) ?? 0) - 1000) ** 2 / 1000, 0);
    // 61 degrees of freedom: above 120 happens by chance about once in 10^6 runs; a `% 62` bias scores ~400.
    expect(chi).toBeLessThan(120);
  });
});
