/**
 * Exact decimal → integer conversion for money. Config prices arrive as YAML numbers
 * (0.15, 2.5); String(number) gives their shortest exact decimal form, which we scale by
 * shifting digits instead of multiplying floats (0.15 * 1e6 is 149999.99999999997).
 */
export function decimalToUnits(value: number | string, scaleDigits: number): number {
  const text = typeof value === 'number' ? numberToPlainString(value) : value.trim();
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new RangeError(`not a decimal number: ${text}`);
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > scaleDigits && /[1-9]/.test(fraction.slice(scaleDigits))) {
    throw new RangeError(`${text} has more than ${scaleDigits} decimal places`);
  }
  const digits = (whole || '0') + fraction.slice(0, scaleDigits).padEnd(scaleDigits, '0');
  const units = Number(digits);
  if (!Number.isSafeInteger(units)) throw new RangeError(`${text} is too large`);
  return sign === '-' ? -units : units;
}

/** Integer units back to a plain decimal string (no exponent, no trailing zeros). */
export function unitsToDecimal(units: number | bigint, scaleDigits: number): string {
  const negative = units < 0;
  const digits = (negative ? -BigInt(units) : BigInt(units)).toString().padStart(scaleDigits + 1, '0');
  const whole = digits.slice(0, digits.length - scaleDigits);
  const fraction = digits.slice(digits.length - scaleDigits).replace(/0+$/, '');
  return (negative ? '-' : '') + whole + (fraction ? '.' + fraction : '');
}

function numberToPlainString(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // 1e-7 and friends: expand the exponent form without float arithmetic.
  const [mantissa, exponentText] = text.toLowerCase().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = whole + fraction;
  const point = whole.length + exponent;
  const plain =
    point <= 0
      ? '0.' + '0'.repeat(-point) + digits
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : digits.slice(0, point) + '.' + digits.slice(point);
  return (negative ? '-' : '') + plain;
}
