/**
 * The test-control methods of Hardhat and anvil (`docs/dev-methods.md`), served under the
 * names each toolchain sends: `evm_*` and `hardhat_*` (Hardhat, ethers, viem's `hardhat` test
 * client) and `anvil_*` (Foundry's `cast rpc`, viem's `anvil` test client). Each operation is
 * one entry of a table; where the two toolchains answer a call that returns nothing
 * differently, Hardhat's names answer `true` and anvil's `null`, as those nodes do.
 *
 * Served on dev chains only (`--dev`, or `--dev.methods`): otherwise every one of them answers
 * a -32000 error that says how to enable them (not -32601: the method exists). They change the
 * chain, so they are `loopback-or-token`: a client that is not on loopback needs the token.
 */
import { bytesToHex, hexToBytes, setLengthLeft, type PrefixedHexString } from '@ethereumjs/util';
import type { DevControl } from '../dev/dev-control.js';
import { InvalidInputError, UnsupportedError } from '../../shared/errors.js';
import type { JsonSchema, ParamSpec } from '../rpc/params.js';
import type { MethodDefinition, NamespaceModule } from '../rpc/registry.js';
import {
  addressSchema,
  booleanSchema,
  dataSchema,
  hash32Schema,
  toAddress,
} from './hex-schemas.js';

/** The namespace the composition root serves on dev chains. */
export const DEV_NAMESPACE = 'dev';

/**
 * A number as toolchains send it: a JSON integer, or hex (leading zeros allowed). A JSON number
 * above 2^53 - 1 is not an exact integer (1e78 parses to some 260-bit value), so larger ones must
 * come as hex, which holds at most 256 bits.
 */
const numberSchema: JsonSchema = {
  anyOf: [
    { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    { type: 'string', pattern: '^0x[0-9a-fA-F]{1,64}$' },
  ],
  description:
    'a non-negative integer, as a JSON number up to 2^53 - 1 or 0x-prefixed hex of at most 256 bits',
};

/** A storage word: hex of at most 32 bytes, left-padded. */
const wordSchema: JsonSchema = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{0,64}$',
  description: 'a storage word (0x-prefixed hex of at most 32 bytes)',
};

/** `evm_mine`'s optional argument: a timestamp, or ganache's and anvil's `{timestamp, blocks}`. */
const mineOptionsSchema: JsonSchema = {
  anyOf: [
    numberSchema,
    {
      type: 'object',
      properties: { timestamp: numberSchema, blocks: numberSchema },
      additionalProperties: false,
    },
  ],
  description: 'a timestamp or an object {timestamp, blocks}',
};

/** `evm_setIntervalMining`: milliseconds (0 turns interval mining off), or Hardhat's [min, max]. */
const intervalSchema: JsonSchema = {
  anyOf: [numberSchema, { type: 'array', items: numberSchema, minItems: 2, maxItems: 2 }],
  description: 'an interval in milliseconds, or [min, max]',
};

const resetSchema: JsonSchema = {
  type: 'object',
  properties: { forking: { type: 'object' } },
  description: 'an object {forking: {jsonRpcUrl, blockNumber}}',
};

type Family = 'hardhat' | 'anvil';

interface DevOperation<P extends unknown[] = unknown[]> {
  names: Partial<Record<Family, readonly string[]>>;
  params: readonly ParamSpec[];
  /** Runs the operation on validated `params`; undefined means "done" (true or null, by family). */
  run(params: P, family: Family): unknown;
}

/** An operation with typed parameters (validated against `params` before `run`). */
function operation<P extends unknown[]>(definition: DevOperation<P>): DevOperation {
  return definition as unknown as DevOperation;
}

const big = (value: number | string): bigint => BigInt(value);

function word(value: string): Uint8Array {
  const hex = value.length % 2 === 0 ? value : `0x0${value.slice(2)}`;
  return setLengthLeft(hexToBytes(hex as PrefixedHexString), 32);
}

const address = { name: 'address', schema: addressSchema };

function operations(dev: DevControl): DevOperation[] {
  const done = async (work: Promise<void> | void) => {
    await work;
  };
  return [
    operation({
      names: { hardhat: ['evm_snapshot'], anvil: ['anvil_snapshot'] },
      params: [],
      run: async () => `0x${(await dev.snapshot()).toString(16)}`,
    }),
    operation({
      names: { hardhat: ['evm_revert'], anvil: ['anvil_revert'] },
      params: [{ name: 'snapshotId', schema: numberSchema }],
      run: ([id]: [number | string], family) =>
        dev.revert(Number(big(id)), family === 'hardhat' ? 'evm_revert' : 'anvil_revert'),
    }),
    operation({
      names: { hardhat: ['evm_mine'] },
      params: [{ name: 'timestampOrOptions', schema: mineOptionsSchema, optional: true }],
      run: async ([options]: [
        number | string | { timestamp?: number | string; blocks?: number | string } | undefined,
      ]) => {
        const { timestamp, blocks } =
          typeof options === 'object' ? options : { timestamp: options, blocks: undefined };
        await dev.mine(blocks === undefined ? 1n : big(blocks), {
          timestamp: timestamp === undefined ? undefined : big(timestamp),
        });
        return '0x0';
      },
    }),
    operation({
      names: { hardhat: ['hardhat_mine'], anvil: ['anvil_mine'] },
      params: [
        { name: 'blocks', schema: numberSchema, optional: true },
        { name: 'interval', schema: numberSchema, optional: true },
      ],
      // Hardhat spaces the blocks 1 s apart unless told; anvil stamps them as the clock says.
      run: (
        [blocks, interval]: [number | string | undefined, number | string | undefined],
        family,
      ) =>
        done(
          dev.mine(blocks === undefined ? 1n : big(blocks), {
            interval:
              interval !== undefined ? big(interval) : family === 'hardhat' ? 1n : undefined,
          }),
        ),
    }),
    operation({
      names: { hardhat: ['evm_increaseTime'], anvil: ['anvil_increaseTime'] },
      params: [{ name: 'seconds', schema: numberSchema }],
      run: ([seconds]: [number | string], family) => {
        const offset = dev.increaseTime(big(seconds));
        return family === 'hardhat' ? offset.toString() : Number(offset);
      },
    }),
    operation({
      names: { hardhat: ['evm_setNextBlockTimestamp'], anvil: ['anvil_setNextBlockTimestamp'] },
      params: [{ name: 'timestamp', schema: numberSchema }],
      run: ([timestamp]: [number | string], family) => {
        dev.setNextBlockTimestamp(big(timestamp));
        return family === 'hardhat' ? big(timestamp).toString() : null;
      },
    }),
    operation({
      names: { anvil: ['anvil_setTime', 'evm_setTime'] },
      params: [{ name: 'timestamp', schema: numberSchema }],
      run: ([timestamp]: [number | string]) => Number(dev.setTime(big(timestamp))),
    }),
    operation({
      names: { anvil: ['anvil_setBlockTimestampInterval'] },
      params: [{ name: 'seconds', schema: numberSchema }],
      run: ([seconds]: [number | string]) => dev.setBlockTimestampInterval(big(seconds)),
    }),
    operation({
      names: { anvil: ['anvil_removeBlockTimestampInterval'] },
      params: [],
      run: () => {
        dev.setBlockTimestampInterval(undefined);
        return true;
      },
    }),
    operation({
      names: { hardhat: ['evm_setAutomine'], anvil: ['anvil_setAutomine'] },
      params: [{ name: 'enabled', schema: booleanSchema }],
      run: ([automine]: [boolean]) => dev.setMiningMode({ automine }),
    }),
    operation({
      names: { hardhat: ['hardhat_getAutomine'], anvil: ['anvil_getAutomine'] },
      params: [],
      run: () => dev.miningMode().automine,
    }),
    operation({
      names: { hardhat: ['evm_setIntervalMining'], anvil: ['anvil_setIntervalMining'] },
      params: [{ name: 'interval', schema: intervalSchema }],
      run: ([interval]: [number | string | Array<number | string>]) => {
        const [min, max] = Array.isArray(interval)
          ? interval.map(big)
          : [big(interval), big(interval)];
        if (min !== max) {
          throw new InvalidInputError(
            'invalid params: random mining intervals ([min, max] with min != max) are not supported',
          );
        }
        dev.setMiningMode({ intervalMs: Number(min) });
      },
    }),
    operation({
      names: { hardhat: ['hardhat_setBalance'], anvil: ['anvil_setBalance'] },
      params: [address, { name: 'balance', schema: numberSchema }],
      run: ([target, balance]: [string, number | string]) =>
        done(dev.setBalance(toAddress(target), big(balance))),
    }),
    operation({
      names: { hardhat: ['hardhat_setNonce'], anvil: ['anvil_setNonce'] },
      params: [address, { name: 'nonce', schema: numberSchema }],
      run: ([target, nonce]: [string, number | string]) =>
        done(dev.setNonce(toAddress(target), big(nonce))),
    }),
    operation({
      names: { hardhat: ['hardhat_setCode'], anvil: ['anvil_setCode'] },
      params: [address, { name: 'code', schema: dataSchema }],
      run: ([target, code]: [string, string]) =>
        done(dev.setCode(toAddress(target), hexToBytes(code as PrefixedHexString))),
    }),
    operation({
      names: { hardhat: ['hardhat_setStorageAt'], anvil: ['anvil_setStorageAt'] },
      params: [
        address,
        { name: 'slot', schema: numberSchema },
        { name: 'value', schema: wordSchema },
      ],
      run: ([target, slot, value]: [string, number | string, string]) =>
        done(dev.setStorageAt(toAddress(target), word(`0x${big(slot).toString(16)}`), word(value))),
    }),
    operation({
      names: { hardhat: ['hardhat_impersonateAccount'], anvil: ['anvil_impersonateAccount'] },
      params: [address],
      run: ([target]: [string]) => dev.impersonation.start(target),
    }),
    operation({
      names: {
        hardhat: ['hardhat_stopImpersonatingAccount'],
        anvil: ['anvil_stopImpersonatingAccount'],
      },
      params: [address],
      run: ([target]: [string]) => {
        dev.impersonation.stop(target);
      },
    }),
    operation({
      names: { anvil: ['anvil_autoImpersonateAccount'] },
      params: [{ name: 'enabled', schema: booleanSchema }],
      run: ([enabled]: [boolean]) => dev.impersonation.setAuto(enabled),
    }),
    operation({
      names: { hardhat: ['hardhat_dropTransaction'], anvil: ['anvil_dropTransaction'] },
      params: [{ name: 'hash', schema: hash32Schema }],
      run: ([hash]: [string], family) => {
        const dropped = dev.dropTransaction(hash);
        if (family === 'hardhat') return dropped;
        return dropped ? bytesToHex(hexToBytes(hash as PrefixedHexString)) : null;
      },
    }),
    operation({
      names: { hardhat: ['hardhat_reset'], anvil: ['anvil_reset'] },
      params: [{ name: 'options', schema: resetSchema, optional: true }],
      run: ([options]: [{ forking?: { jsonRpcUrl?: string } } | undefined], family) => {
        if (options?.forking?.jsonRpcUrl !== undefined) {
          throw new UnsupportedError(
            'forking is not supported: this node resets its own chain to genesis (call the method without a forking URL)',
          );
        }
        return done(dev.reset(family === 'hardhat' ? 'hardhat_reset' : 'anvil_reset'));
      },
    }),
  ];
}

/** Every name of every operation, for the docs test and for the refusals when disabled. */
export function devMethodNames(): string[] {
  return operations(undefined as unknown as DevControl).flatMap((op) =>
    Object.values(op.names).flat(),
  );
}

/**
 * The dev namespace over `dev`; with `enabled` false (not a dev chain) every method answers
 * the error that says how to enable it, whatever its parameters.
 */
export function devNamespace(dev: DevControl, enabled: boolean): NamespaceModule {
  const methods: MethodDefinition[] = [];
  for (const op of operations(dev)) {
    for (const family of ['hardhat', 'anvil'] as const) {
      for (const name of op.names[family] ?? []) {
        methods.push(
          enabled
            ? {
                name,
                params: op.params,
                handler: async (params) => {
                  const result = await op.run(params, family);
                  return result ?? (family === 'hardhat' ? true : null);
                },
              }
            : {
                name,
                params: op.params.map((spec) => ({ ...spec, schema: {}, optional: true })),
                handler: () => {
                  throw new UnsupportedError(
                    `the method ${name} is a development method, served on dev chains only: start the daemon with --dev or --dev.methods`,
                  );
                },
              },
        );
      }
    }
  }
  return { namespace: DEV_NAMESPACE, access: 'loopback-or-token', methods };
}
