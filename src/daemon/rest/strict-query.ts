/**
 * What ajv lets through from a query string and the node refuses instead:
 *
 * - Numbers in other notations than decimal digits. ajv turns any string JavaScript reads as a
 *   number into one, so `limit=0x10` was 16, and `1e400` or `Infinity` became Infinity, which
 *   then passed `minimum` and `maximum` (ajv skips them for values that are not finite) and
 *   reached the handlers: a redundancy of Infinity was stored and every later answer listing
 *   the file failed to serialise. Integers past 2^53 - 1 are refused too (they would be
 *   rounded).
 * - Parameters the route does not have, where its schema says so (`additionalProperties:
 *   false`): ajv drops them without a word, so `redundnacy=3` stored one replica.
 *
 * Both are checked after the validator accepted, and reported the way fastify reports a failed
 * schema, naming the parameter. A value outside a parameter's list of choices is told the
 * choices (ajv's own message does not give them).
 */

/** What a route validator is to fastify: a predicate that leaves its failures in `errors`. */
export interface RouteValidator {
  (data: unknown): unknown;
  errors?: unknown;
}

const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

function isPlainDecimal(text: string, value: number): boolean {
  return DECIMAL.test(text) && Math.abs(value) <= Number.MAX_SAFE_INTEGER;
}

function failure(key: string, message: string) {
  return [
    { instancePath: `/${key}`, schemaPath: '#', keyword: 'strictQuery', params: {}, message },
  ];
}

/** The first refusal for what validation made of `before` (the query as it arrived). */
function refusalOf(before: Record<string, unknown>, after: Record<string, unknown>) {
  for (const [key, raw] of Object.entries(before)) {
    if (!(key in after)) return failure(key, 'is not a parameter of this operation');
    const value = after[key];
    if (typeof raw === 'string' && typeof value === 'number' && !isPlainDecimal(raw, value)) {
      return failure(key, `must be written in decimal digits (at most ${Number.MAX_SAFE_INTEGER})`);
    }
  }
  return undefined;
}

interface AjvError {
  keyword?: string;
  message?: string;
  params?: { allowedValues?: unknown[] };
}

/** ajv says only "must be equal to one of the allowed values"; name them. */
function withChoices(errors: unknown): unknown {
  if (!Array.isArray(errors)) return errors;
  return (errors as AjvError[]).map((error) =>
    error.keyword === 'enum' && Array.isArray(error.params?.allowedValues)
      ? { ...error, message: `must be one of ${error.params.allowedValues.join(', ')}` }
      : error,
  );
}

/** `validate` for a route's query string, refusing what the module comment lists. */
export function strictQuery(validate: RouteValidator): RouteValidator {
  const strict: RouteValidator = (data: unknown) => {
    const before = data !== null && typeof data === 'object' ? { ...data } : {};
    const result = validate(data);
    strict.errors = withChoices(validate.errors);
    if (result !== true) return result;
    const refusal = refusalOf(before, data as Record<string, unknown>);
    if (!refusal) return result;
    strict.errors = refusal;
    return false;
  };
  return strict;
}
