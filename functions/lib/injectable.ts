/**
 * One implementation of each port (core/ports.ts) for the whole process. Lambda runs the
 * default, made at first use; a host that runs the handler modules elsewhere (the local
 * stack, the tests) injects its stand-in where it starts, before any handler asks. The
 * product code only ever asks for the port, never which host it is on.
 */
import type { Ports } from '../core/ports.js';

type PortName = keyof Ports;

const injected: { [P in PortName]?: Ports[P] } = {};

/** Replaces the port's implementation for every later call, the default's place included. */
export function inject<P extends PortName>(port: P, implementation: Ports[P]): void {
  injected[port] = implementation;
}

/** The port's implementation: the injected one, else `makeDefault()`'s, made once. */
export function injectable<P extends PortName>(port: P, makeDefault: () => Ports[P]): () => Ports[P] {
  let made: Ports[P] | undefined;
  return () => {
    const chosen = injected[port];
    if (chosen) return chosen as Ports[P];
    made ??= makeDefault();
    return made;
  };
}
