/**
 * Fractional rank keys: strings over base-62 digits in ASCII order, compared as plain text, so
 * a key strictly between any two keys always exists. Keys never end with the smallest digit,
 * which keeps "between" well defined. Equal keys are allowed (concurrent inserts may collide);
 * lists break ties by id, so the order stays total and stable.
 */
const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const digitAt = (key: string, index: number): number => (index < key.length ? digits.indexOf(key[index]!) : 0);

/** True when `key` is a well-formed rank key. */
export const isRankKey = (key: string): boolean =>
  key.length > 0 && key.length <= 1024 && [...key].every((c) => digits.includes(c)) && !key.endsWith("0");

const between = (a: string, b: string | null): string => {
  if (b !== null) {
    // Shared prefix first: the key continues it.
    let n = 0;
    while ((a[n] ?? "0") === b[n]) n++;
    if (n > 0) return b.slice(0, n) + between(a.slice(n), b.slice(n));
  }
  const low = digitAt(a, 0);
  const high = b === null ? digits.length : digitAt(b, 0);
  if (high - low > 1) {
    // Appending steps by one digit so keys grow slowly; inserting takes the midpoint.
    return digits[b === null ? low + 1 : Math.round((low + high) / 2)]!;
  }
  if (b !== null && b.length > 1) return b.slice(0, 1);
  return digits[low]! + between(a.slice(1), null);
};

/**
 * A key strictly after `before` and strictly before `after` (null: open end). Throws when
 * before >= after, which is a caller bug.
 */
export const rankBetween = (before: string | null, after: string | null): string => {
  if (before !== null && after !== null && before >= after) throw new RangeError(`rankBetween: ${before} >= ${after}`);
  return between(before ?? "", after);
};
