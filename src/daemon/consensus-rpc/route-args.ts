/**
 * Arguments of a consensus RPC call, from either of CometBFT's two forms: URI query parameters
 * (`/block?height=5`, `/tx_search?query="tm.event='Tx'"`, strings optionally double-quoted,
 * bytes as `0x` hex) or JSON-RPC params, named (`{"height":"5"}`) or positional in the
 * route's parameter order. Integers may be numbers or decimal strings; a hash may be hex
 * (with or without `0x`) or base64, which is what CometBFT's JSON form uses for bytes.
 */
import { InvalidInputError } from '../../shared/errors.js';

type RawValue = unknown;

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** A call's arguments by name, read and checked one at a time by the route that needs them. */
export class RouteArgs {
  private constructor(private readonly values: ReadonlyMap<string, RawValue>) {}

  /** From a URL's query parameters; names not in `names` are refused. */
  static fromSearchParams(search: URLSearchParams, names: readonly string[]): RouteArgs {
    const values = new Map<string, RawValue>();
    for (const [name, value] of search) {
      if (!names.includes(name)) throw new InvalidInputError(`unknown parameter ${name}`);
      values.set(name, unquote(value));
    }
    return new RouteArgs(values);
  }

  /** From JSON-RPC `params`: an object by name, an array by position, or nothing. */
  static fromJsonParams(params: unknown, names: readonly string[]): RouteArgs {
    const values = new Map<string, RawValue>();
    if (params === undefined || params === null) return new RouteArgs(values);
    if (Array.isArray(params)) {
      if (params.length > names.length) {
        throw new InvalidInputError(
          `expected at most ${names.length} parameters (${names.join(', ')}), got ${params.length}`,
        );
      }
      params.forEach((value, index) => values.set(names[index], value));
    } else if (typeof params === 'object') {
      for (const [name, value] of Object.entries(params)) {
        if (!names.includes(name)) throw new InvalidInputError(`unknown parameter ${name}`);
        values.set(name, value);
      }
    } else {
      throw new InvalidInputError('params must be an object or an array');
    }
    return new RouteArgs(values);
  }

  private present(name: string): RawValue {
    const value = this.values.get(name);
    return value === null || value === '' ? undefined : value;
  }

  /** A non-negative integer, or undefined when absent. */
  integer(name: string): number | undefined {
    const value = this.present(name);
    if (value === undefined) return undefined;
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^\d{1,15}$/.test(text)) {
      throw new InvalidInputError(
        `${name} must be a non-negative integer, got ${JSON.stringify(value)}`,
      );
    }
    return Number(text);
  }

  string(name: string): string | undefined {
    const value = this.present(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      throw new InvalidInputError(`${name} must be a string, got ${JSON.stringify(value)}`);
    }
    return value;
  }

  boolean(name: string): boolean | undefined {
    const value = this.present(name);
    if (value === undefined || typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new InvalidInputError(`${name} must be true or false, got ${JSON.stringify(value)}`);
  }

  /** A 32-byte hash as hex (`0x` optional, any case) or base64. */
  hash(name: string): Uint8Array | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const hex = /^(?:0x)?([0-9a-fA-F]{64})$/.exec(value);
    if (hex !== null) return Uint8Array.from(Buffer.from(hex[1], 'hex'));
    if (/^[A-Za-z0-9+/]{43}=$/.test(value)) return Uint8Array.from(Buffer.from(value, 'base64'));
    throw new InvalidInputError(`${name} must be a 32-byte hash in hex or base64, got "${value}"`);
  }
}
