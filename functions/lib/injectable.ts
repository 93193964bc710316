/**
 * One implementation of a port for the whole process. Lambda runs the default, made at
 * first use; a host that runs the handler modules elsewhere (the local stack, the tests)
 * injects its stand-in where it starts, before any handler asks. The product code only
 * ever asks for the port, never which host it is on.
 */
export interface Injectable<T> {
  (): T;
  /** Replaces the implementation for every later call. */
  inject(implementation: T): void;
}

export function injectable<T>(makeDefault: () => T): Injectable<T> {
  let chosen: T | undefined;
  const get = () => {
    chosen ??= makeDefault();
    return chosen;
  };
  return Object.assign(get, {
    inject(implementation: T) {
      chosen = implementation;
    },
  });
}
