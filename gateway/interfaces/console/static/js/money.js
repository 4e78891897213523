// Money as whole cents: the API writes euros as text ("100.00"), and adding floats would
// drift. Amounts here stay far below 2^53 cents.

/** "-12.5" or "12.50" -> -1250 or 1250 (cents); null for anything else. */
export function cents(text) {
  if (text === null || text === undefined) return null;
  const match = /^([+-]?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(text).trim());
  if (!match) return null;
  const [, sign, whole, fraction = ""] = match;
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return sign === "-" ? -value : value;
}

/** 1250 -> "12.50"; -5 -> "-0.05". */
export function euros(value) {
  const sign = value < 0 ? "-" : "";
  const absolute = Math.abs(value);
  const fraction = String(absolute % 100).padStart(2, "0");
  return `${sign}${Math.floor(absolute / 100)}.${fraction}`;
}

/** A difference, always with its sign: "+10.00", "-10.00", "0.00". */
export function signed(value) {
  return value > 0 ? `+${euros(value)}` : euros(value);
}
