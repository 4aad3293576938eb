/** The median of the figures (the upper one of the middle two for an even count). */
export function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/** x rounded to `digits` decimals. */
export const round = (x: number, digits = 0): number => Math.round(x * 10 ** digits) / 10 ** digits;
