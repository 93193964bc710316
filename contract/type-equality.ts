/**
 * A compile-time check that two declarations of one type agree (decision 213): where a
 * shape exists both as an interface (the core's) and as a zod schema (the contract's), the
 * module holding the interface declares `export type X = Assert<Equals<Interface, Schema>>`,
 * so a field added to one and not the other fails `tsc`. Types only: nothing reaches a bundle.
 */

/** True when A and B are the same type (each assignable to the other is not enough: optional and readonly count). */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when T is `true`. */
export type Assert<T extends true> = T;
