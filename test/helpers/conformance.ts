/**
 * The Ethereum execution-apis reference data in ../shared/conformance (the CI clone has shared/
 * beside the repository): the OpenRPC document, whose result schemas validate what the node
 * returns, and the `.io` request/response cases, which are replayed against the node.
 *
 * Our spec wins where it differs from that document: block objects carry `difficulty`, `nonce`,
 * `sha3Uncles` and `totalDifficulty` as null and may carry a null `gasUsed`, and receipts may
 * carry a null `cumulativeGasUsed`; {@link resultViolations} relaxes the schemas accordingly. It
 * also reads `oneOf` as `anyOf`: the document's alternatives overlap on empty arrays (an empty
 * eth_getFilterChanges answer is both "no hashes" and "no logs"), which `oneOf` would refuse.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** Where the reference data is: beside the repository, or where NODE_CLI_CONFORMANCE_DIR says. */
const conformanceDir =
  process.env.NODE_CLI_CONFORMANCE_DIR === undefined
    ? new URL('../../../shared/conformance/', import.meta.url)
    : pathToFileURL(`${process.env.NODE_CLI_CONFORMANCE_DIR.replace(/\/$/, '')}/`);

type JsonSchema = { [keyword: string]: unknown };

interface OpenRpcMethod {
  name: string;
  result?: { name: string; schema: JsonSchema };
}

/** One `.io` case: the request sent and the response expected. */
export interface IoCase {
  /** Path under io-cases/, e.g. `eth_getBalance/get-balance-unknown-account.io`. */
  file: string;
  method: string;
  /** The `//` comment lines, joined. */
  comment: string;
  request: { jsonrpc: '2.0'; id: number | string; method: string; params?: unknown[] };
  response: {
    jsonrpc: '2.0';
    id: number | string;
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
}

let methodsByName: Map<string, OpenRpcMethod> | undefined;

function openRpcMethods(): Map<string, OpenRpcMethod> {
  if (methodsByName === undefined) {
    const document = JSON.parse(readFileSync(new URL('openrpc.json', conformanceDir), 'utf8')) as {
      methods: OpenRpcMethod[];
    };
    methodsByName = new Map(document.methods.map((method) => [method.name, method]));
  }
  return methodsByName;
}

const nullable = (schema: unknown): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const QUANTITY = { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' };
const BLOCK_SPEC_NULLS = ['difficulty', 'nonce', 'sha3Uncles', 'totalDifficulty', 'gasUsed'];

/**
 * A copy of `schema` where block and receipt objects admit the nulls our spec prescribes and
 * `oneOf` is read as `anyOf`.
 */
function adaptSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(adaptSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: JsonSchema = Object.fromEntries(
    Object.entries(schema).map(([keyword, value]) => [
      keyword === 'oneOf' ? 'anyOf' : keyword,
      adaptSchema(value),
    ]),
  );
  const properties = copy.properties as Record<string, unknown> | undefined;
  if (properties === undefined) return copy;
  if ('stateRoot' in properties && 'sha3Uncles' in properties) {
    for (const field of BLOCK_SPEC_NULLS)
      properties[field] = nullable(properties[field] ?? QUANTITY);
  }
  if ('cumulativeGasUsed' in properties && 'transactionHash' in properties) {
    properties.cumulativeGasUsed = nullable(properties.cumulativeGasUsed);
  }
  return copy;
}

const ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
const validators = new Map<string, ValidateFunction>();

/** The validator of `method`'s result schema, adapted as described above. */
function resultValidator(method: string): ValidateFunction {
  let validate = validators.get(method);
  if (validate === undefined) {
    const result = openRpcMethods().get(method)?.result;
    if (result === undefined) throw new Error(`the OpenRPC document has no result for ${method}`);
    validate = ajv.compile(adaptSchema(result.schema) as JsonSchema);
    validators.set(method, validate);
  }
  return validate;
}

/** Validates a result; returns the schema violations as readable lines (empty when it conforms). */
export function resultViolations(method: string, result: unknown): string[] {
  const validate = resultValidator(method);
  if (validate(result)) return [];
  return (validate.errors ?? []).map((error: ErrorObject) => {
    const extra = (error.params as { additionalProperty?: string }).additionalProperty;
    const what = extra === undefined ? (error.message ?? '') : `has the unknown field "${extra}"`;
    return `${method}${error.instancePath || '(result)'} ${what} (got ${JSON.stringify(error.data)?.slice(0, 80)})`;
  });
}

function parseIoCase(file: string, text: string): IoCase {
  const lines = text.split('\n');
  const comment = lines
    .filter((line) => line.startsWith('//'))
    .map((line) => line.slice(2).trim())
    .join(' ');
  const request = lines.find((line) => line.startsWith('>>'));
  const response = lines.find((line) => line.startsWith('<<'));
  if (request === undefined || response === undefined)
    throw new Error(`${file}: expected one ">>" request and one "<<" response`);
  const parsedRequest = JSON.parse(request.slice(2)) as IoCase['request'];
  return {
    file,
    method: parsedRequest.method,
    comment,
    request: parsedRequest,
    response: JSON.parse(response.slice(2)) as IoCase['response'],
  };
}

/** The `.io` cases of the given methods, sorted by file. */
export function loadIoCases(methods: readonly string[]): IoCase[] {
  const root = new URL('io-cases/', conformanceDir);
  return methods
    .flatMap((method) => {
      const dir = new URL(`${method}/`, root);
      let names: string[];
      try {
        names = readdirSync(fileURLToPath(dir));
      } catch {
        return [];
      }
      return names
        .filter((name) => name.endsWith('.io'))
        .map((name) => parseIoCase(`${method}/${name}`, readFileSync(new URL(name, dir), 'utf8')));
    })
    .sort((a, b) => a.file.localeCompare(b.file));
}
