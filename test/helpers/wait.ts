/** Polls until `check` returns a value, with a deadline: never an open-ended sleep. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  timeoutMs = 20_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** An HTTP answer docs/api.md tells a client to send again (429 after Retry-After, 5xx with backoff): a poller's "not yet". */
export const clientRetries = (status: number): boolean => status === 429 || status >= 500;
