/**
 * Numbers that arrive as text (query parameters): ajv turns any string JavaScript reads as a
 * number into one, so `limit=0x10` was 16, and `1e400` or `Infinity` became Infinity, which
 * then passed `minimum` and `maximum` (ajv skips them for values that are not finite) and
 * reached the handlers: a redundancy of Infinity was stored and every later answer listing
 * the file failed to serialise. After a validator accepts, this refuses any top-level value
 * it coerced from a string unless the string was plain decimal digits of a safe integer
 * (or a decimal fraction) — the way fastify reports a failed schema, naming the parameter.
 */

/** What a route validator is to fastify: a predicate that leaves its failures in `errors`. */
export interface RouteValidator {
  (data: unknown): unknown;
  errors?: unknown;
}

const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

const MESSAGE = `must be written in decimal digits (at most ${Number.MAX_SAFE_INTEGER})`;

function isPlainDecimal(text: string, value: number): boolean {
  return DECIMAL.test(text) && Math.abs(value) <= Number.MAX_SAFE_INTEGER;
}

/** `validate`, refusing numbers coerced from strings that are not plain decimals. */
export function withStrictNumbers(validate: RouteValidator): RouteValidator {
  const strict: RouteValidator = (data: unknown) => {
    const texts =
      data !== null && typeof data === 'object'
        ? Object.entries(data).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string',
          )
        : [];
    const result = validate(data);
    strict.errors = validate.errors;
    if (result !== true) return result;
    const values = data as Record<string, unknown>;
    for (const [key, text] of texts) {
      const value = values[key];
      if (typeof value === 'number' && !isPlainDecimal(text, value)) {
        strict.errors = [
          {
            instancePath: `/${key}`,
            schemaPath: '#/strictNumbers',
            keyword: 'strictNumbers',
            params: {},
            message: MESSAGE,
          },
        ];
        return false;
      }
    }
    return result;
  };
  return strict;
}
