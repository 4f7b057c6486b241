// A part of a request parsed ahead of its use: its value, or the failure of parsing it, kept to be thrown where the
// plan first needs that part, so a request wrong in two ways is answered for the same one as when each was read late.
export type Parsed<T> = { value: T } | { error: unknown };

export function attempt<T>(parse: () => T): Parsed<T> {
  try {
    return { value: parse() };
  } catch (error) {
    return { error };
  }
}

export async function attemptAsync<T>(parse: () => Promise<T>): Promise<Parsed<T>> {
  try {
    return { value: await parse() };
  } catch (error) {
    return { error };
  }
}

/** The part's value, or its failure thrown. */
export function take<T>(part: Parsed<T>): T {
  if ('error' in part) throw part.error;
  return part.value;
}
