/**
 * The dashboard's user pool, declared once for both hosts: Cognito on AWS (infra/aws)
 * and its emulation under `npm start` (local/user-pool.ts).
 */
export const PASSWORD_POLICY = {
  minLength: 12,
  requireLowercase: true,
  requireUppercase: true,
  requireDigits: true,
  requireSymbols: true,
} as const;

/** The dashboard's tokens live about an hour (docs/dashboard.md, "Sign-in and tokens") and are refreshed without asking the user again. */
export const ID_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_DAYS = 30;

/** What a password lacks under the policy, in Cognito's words; empty when it conforms. */
export function passwordProblems(password: string): string[] {
  const p = PASSWORD_POLICY;
  return [
    password.length < p.minLength ? `Password not long enough (at least ${p.minLength} characters)` : '',
    p.requireLowercase && !/[a-z]/.test(password) ? 'Password must have lowercase characters' : '',
    p.requireUppercase && !/[A-Z]/.test(password) ? 'Password must have uppercase characters' : '',
    p.requireDigits && !/\d/.test(password) ? 'Password must have numeric characters' : '',
    // Cognito's symbols: anything printable that is not a letter, a digit or a space.
    p.requireSymbols && !/[^A-Za-z0-9\s]/.test(password) ? 'Password must have symbol characters' : '',
  ].filter(Boolean);
}
