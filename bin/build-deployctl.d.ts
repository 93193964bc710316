/** Types of bin/build-deployctl.js, a plain ES module so the launcher needs no TypeScript loader. */
export const BUNDLE: string;
export function bundleIsFresh(): boolean;
export function buildBundle(): Promise<void>;
