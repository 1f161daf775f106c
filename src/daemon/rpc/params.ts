/**
 * Positional parameter validation through JSON Schema (ajv). Each method declares its
 * parameters in order; a failure names the parameter's position and name and what was
 * expected, taken from the failing schema's `description`.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidInputError } from '../../shared/errors.js';

export type JsonSchema = Record<string, unknown>;

export interface ParamSpec {
  name: string;
  schema: JsonSchema;
  /** Optional parameters may be omitted (or given as null) at the end of the list. */
  optional?: boolean;
}

const ajv = new Ajv({ allErrors: false, verbose: true, strict: false });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function explain(error: ErrorObject): string {
  const where = error.instancePath
    ? `field ${error.instancePath.slice(1).replace(/\//g, '.')} `
    : '';
  const description = (error.parentSchema as JsonSchema | undefined)?.description;
  if (error.keyword === 'required') {
    return `missing field ${(error.params as { missingProperty: string }).missingProperty}`;
  }
  if (error.keyword === 'additionalProperties') {
    return `unknown field ${(error.params as { additionalProperty: string }).additionalProperty}`;
  }
  if (typeof description === 'string') return `${where}must be ${description}`;
  return `${where}${error.message ?? 'is invalid'}`;
}

/**
 * Checks `params` against the declared list and returns them as an array (missing optional
 * parameters become undefined). Throws `InvalidInputError` naming the parameter.
 */
export function validateParams(specs: readonly ParamSpec[], params: unknown): unknown[] {
  if (params !== undefined && !Array.isArray(params)) {
    throw new InvalidInputError('invalid params: params must be an array of positional parameters');
  }
  const values = (params as unknown[] | undefined) ?? [];
  if (values.length > specs.length) {
    throw new InvalidInputError(
      `invalid params: too many arguments, want at most ${specs.length}, got ${values.length}`,
    );
  }
  return specs.map((spec, index) => {
    const value = values[index];
    if (value === undefined || value === null) {
      if (spec.optional) return undefined;
      throw new InvalidInputError(
        `invalid params: missing value for required argument ${index} (${spec.name})`,
      );
    }
    const validate = validatorFor(spec.schema);
    if (!validate(value)) {
      const reason = validate.errors?.[0] ? explain(validate.errors[0]) : 'is invalid';
      throw new InvalidInputError(`invalid params: argument ${index} (${spec.name}): ${reason}`);
    }
    return value;
  });
}
