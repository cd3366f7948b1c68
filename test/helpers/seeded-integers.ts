/**
 * Integers from a seeded linear congruential generator (the C library's constants): the same
 * sequence on every run, so a test that makes random edits is repeatable and a failure can be
 * replayed. `below(n)` is in [0, n).
 */
export function seededIntegers(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
}
