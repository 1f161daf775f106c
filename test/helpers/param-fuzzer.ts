/**
 * Generates JSON-RPC parameters for fuzzing from a seeded PRNG: values shaped by each method's
 * own parameter schemas (so calls get past validation and reach the handlers), mixed with
 * boundary values (2^64, 2^256, the zero address, precompiles) and garbage (wrong types,
 * leading zeros, odd-length hex, deep nesting, long and unusual strings, missing and extra
 * parameters). Raw transactions are properly signed by a dev account, with fields drawn from
 * the same boundary values; their signatures are never mangled (recovering a signer from an
 * invalid signature is a separate finding of the issue, fixed in the crypto wrappers).
 */
import { SigningKey, Transaction } from 'ethers';
import type { JsonSchema, ParamSpec } from '../../src/daemon/rpc/params.js';
import type { Access, NamespaceModule } from '../../src/daemon/rpc/registry.js';
import {
  addressSchema,
  dataSchema,
  hash32Schema,
  uint256Schema,
  uint64Schema,
} from '../../src/daemon/api/hex-schemas.js';
import { namespaceModules } from '../../src/daemon/api/namespaces.js';
import type { NodeServices } from '../../src/daemon/api/services.js';
import type { AccountManager } from '../../src/daemon/accounts/account-manager.js';
import type { NodeKey } from '../../src/daemon/datadir/node-key.js';
import { DEV_PRIVATE_KEYS } from '../../src/daemon/chain/genesis.js';

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FuzzedMethod {
  name: string;
  access: Access;
  params: readonly ParamSpec[];
}

/**
 * Every method the node can serve with its parameter specs, read from the same namespace list
 * the daemon registers. The modules are built over a stand-in for the node's services: only
 * the method definitions are read, no handler runs here.
 */
export function servedMethods(): FuzzedMethod[] {
  const standIn: unknown = new Proxy(function standIn() {}, {
    get: (_target, key) => (key === Symbol.toPrimitive ? () => 0 : standIn),
    apply: () => standIn,
    construct: () => standIn as object,
  });
  const modules: NamespaceModule[] = namespaceModules(
    standIn as NodeServices,
    standIn as AccountManager,
    standIn as NodeKey,
  );
  return modules.flatMap((module) =>
    module.methods.map((method) => ({
      name: method.name,
      access: method.access ?? module.access,
      params: method.params,
    })),
  );
}

const hexOf = (value: bigint) => `0x${value.toString(16)}`;

export class ParamFuzzer {
  private readonly next: () => number;
  private readonly signingKey = new SigningKey(DEV_PRIVATE_KEYS[1]);

  constructor(
    seed: number,
    /** Addresses worth hitting: funded and unlocked accounts, precompiles. */
    private readonly knownAddresses: readonly string[],
  ) {
    this.next = seededRandom(seed);
  }

  private chance(p: number): boolean {
    return this.next() < p;
  }

  private int(max: number): number {
    return Math.floor(this.next() * max);
  }

  private pick<T>(values: readonly T[]): T {
    return values[this.int(values.length)];
  }

  private hexDigits(count: number): string {
    let digits = '';
    for (let i = 0; i < count; i++) digits += '0123456789abcdef'[this.int(16)];
    return digits;
  }

  private quantity(bits: number): string {
    return this.pick([
      '0x0',
      '0x1',
      '0x5208',
      '0x15f90',
      hexOf(BigInt(this.int(1000))),
      hexOf(2n ** BigInt(bits) - 1n),
      hexOf(2n ** BigInt(bits)),
      hexOf(2n ** 64n - 2n),
      hexOf(2n ** 63n),
      hexOf(2n ** 255n),
      hexOf(2n ** 256n + 1n),
      hexOf(2n ** 300n),
      `0x${this.hexDigits(1 + this.int(80))}`.replace(/^0x0+(?=.)/, '0x'),
    ]);
  }

  private address(): string {
    return this.pick([
      ...this.knownAddresses,
      `0x${'0'.repeat(40)}`,
      `0x${'f'.repeat(40)}`,
      `0x${'0'.repeat(39)}1`,
      `0x${'0'.repeat(38)}0a`,
      `0x${this.hexDigits(40)}`,
    ]);
  }

  private hash(): string {
    return this.pick([`0x${'0'.repeat(64)}`, `0x${'f'.repeat(64)}`, `0x${this.hexDigits(64)}`]);
  }

  private data(): string {
    return this.pick([
      '0x',
      '0x00',
      `0x${this.hexDigits(2 * this.int(70))}`,
      `0x${this.hexDigits(2 * (1 + this.int(4000)))}`,
      // past the init code size limit (49 152 bytes)
      `0x${'60'.repeat(49_153 + this.int(100))}`,
      // calldata of a call to a function with a uint256 argument
      `0x70a08231${'0'.repeat(24)}${this.hexDigits(40)}`,
      // init code that returns nothing, and one that loops until out of gas
      '0x6000600055',
      '0x5b600056',
      // raw encodings: RLP lists and a typed envelope with junk in it
      `0x02${this.hexDigits(2 * this.int(200))}`,
      `0xc0`,
      `0xf8${this.hexDigits(2 * this.int(100))}`,
    ]);
  }

  private accessList(): Array<{ address: string; storageKeys: string[] }> {
    return Array.from({ length: this.int(3) }, () => ({
      address: this.address(),
      storageKeys: Array.from({ length: this.int(3) }, () => this.hash()),
    }));
  }

  /** A raw transaction signed by a dev account, its fields from the boundary values. */
  private signedTransaction(): string {
    const type = this.pick([0, 1, 2]);
    const fee = () =>
      BigInt(
        this.chance(0.7) ? this.pick(['0x0', '0x3b9aca00', '0x4a817c800']) : this.quantity(256),
      );
    try {
      const tx = Transaction.from({
        type,
        chainId: this.pick([9000n, 9000n, 9000n, 1n, 2n ** 64n - 1n]),
        nonce: this.pick([0, 1, 2, 1000, 2 ** 32, Number.MAX_SAFE_INTEGER]),
        gasLimit: BigInt(
          this.chance(0.7) ? this.pick(['0x5208', '0x186a0', '0x0']) : this.quantity(64),
        ),
        to: this.chance(0.9) ? this.address() : null,
        value: BigInt(this.chance(0.7) ? this.pick(['0x0', '0x1']) : this.quantity(256)),
        data: this.data(),
        ...(type === 2
          ? { maxFeePerGas: fee(), maxPriorityFeePerGas: fee() }
          : { gasPrice: fee() }),
        ...(type === 0 ? {} : { accessList: this.accessList() }),
      });
      tx.signature = this.signingKey.sign(tx.unsignedHash);
      return tx.serialized;
    } catch {
      return this.data(); // a field ethers itself cannot encode
    }
  }

  /** A value that breaks some rule: wrong type, bad hex, out of range, odd shapes. */
  garbage(depth = 0): unknown {
    const scalars: unknown[] = [
      null,
      true,
      false,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      2 ** 53 + 1,
      '',
      ' ',
      '0x',
      '0X1',
      '0x00',
      '0x-1',
      '-0x1',
      '0xg',
      '0xabc',
      '0x 1',
      'latest',
      'pending',
      'earliest',
      'safe',
      'finalized',
      'lastest',
      '123',
      '\u0000',
      '\ud800',
      '\u202e\u0301é漢字🙂',
      '💥'.repeat(200),
      'a'.repeat(70_000),
      `0x${'f'.repeat(1000)}`,
      `0x${'0'.repeat(64)}`,
      '__proto__',
      'constructor',
      'toString',
      hexOf(2n ** 64n),
      hexOf(2n ** 256n),
      this.quantity(256),
      this.address(),
    ];
    if (depth > 2 || this.chance(0.7)) return this.pick(scalars);
    switch (this.int(5)) {
      case 0:
        return [];
      case 1:
        return Array.from({ length: 1 + this.int(4) }, () => this.garbage(depth + 1));
      case 2:
        return JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}');
      case 3: {
        // Deep, but inside --json-rpc.max-nesting (128): past it a request is refused before
        // parsing, with id null (transport-limits.test.ts covers that refusal).
        let nested: unknown = this.garbage(depth + 1);
        for (let i = 0; i < 40; i++) nested = this.chance(0.5) ? [nested] : { a: nested };
        return nested;
      }
      default:
        return { [this.pick(['from', 'to', 'gas', 'value', 'x', ''])]: this.garbage(depth + 1) };
    }
  }

  /** A value for `schema`: usually one it accepts, sometimes one it refuses. */
  fromSchema(schema: JsonSchema, depth = 0): unknown {
    if (this.chance(0.12) || depth > 4) return this.garbage();
    if (schema === uint64Schema) return this.quantity(64);
    if (schema === uint256Schema) return this.quantity(256);
    if (schema === addressSchema) return this.address();
    if (schema === hash32Schema) return this.hash();
    if (schema === dataSchema) return this.data();
    if (Array.isArray(schema.anyOf)) return this.fromSchema(this.pick(schema.anyOf), depth + 1);
    if (Array.isArray(schema.enum)) return this.pick(schema.enum);
    switch (schema.type) {
      case 'boolean':
        return this.chance(0.5);
      case 'integer':
      case 'number':
        return this.pick([0, 1, 2, 50, 99.5, 100, 101, 1024, 2 ** 31, 2 ** 53 - 1, -5]);
      case 'null':
        return null;
      case 'array': {
        const items = (schema.items ?? {}) as JsonSchema;
        return Array.from({ length: this.int(5) }, () => this.fromSchema(items, depth + 1));
      }
      case 'object':
        return this.objectFor(schema, depth);
      case 'string':
        if (typeof schema.pattern === 'string' && schema.pattern.includes('0x')) {
          return `0x${this.hexDigits(this.int(70))}`;
        }
        return this.pick([
          '',
          'test',
          'local://fuzz',
          'password',
          'newHeads',
          'logs',
          'x'.repeat(300),
        ]);
      default:
        return this.garbage();
    }
  }

  private objectFor(schema: JsonSchema, depth: number): Record<string, unknown> {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const value: Record<string, unknown> = {};
    for (const [key, propertySchema] of Object.entries(properties)) {
      if (this.chance(0.35)) value[key] = this.fromSchema(propertySchema, depth + 1);
    }
    if (this.chance(0.1))
      value[this.pick(['accessList', 'type', 'chainId', 'extra'])] = this.garbage();
    return value;
  }

  /** The params member of one request to a method with these specs. */
  paramsFor(specs: readonly ParamSpec[]): unknown {
    const roll = this.next();
    if (roll < 0.05) return this.garbage();
    if (roll < 0.1) return undefined;
    if (roll < 0.2) return Array.from({ length: this.int(6) }, () => this.garbage());
    const params = specs.map((spec) =>
      spec.name === 'signedTransaction' && this.chance(0.7)
        ? this.signedTransaction()
        : this.fromSchema(spec.schema),
    );
    if (this.chance(0.15)) params.length = this.int(params.length + 1);
    if (this.chance(0.05)) params.push(this.garbage());
    return params;
  }
}
