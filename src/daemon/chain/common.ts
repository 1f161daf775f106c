import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import type { ParamsConfig, ParamsDict } from '@ethereumjs/common';
import { evmCrypto } from './evm-crypto.js';

/** The hardfork the node executes; the latest one EthereumJS 10 runs reliably. */
export const CHAIN_HARDFORK = Hardfork.Prague;

/**
 * How often each parameter set has changed. A `Common` and its copies share one set (`copy()`
 * is shallow), so a change through any of them makes the others' parameter caches stale.
 */
const paramsVersions = new WeakMap<ParamsDict, number>();

/** The last parameter cache built from a parameter set, and what it was built for. */
interface BuiltParams {
  version: number;
  hardfork: string;
  eips: number[];
  cache: ParamsConfig;
}
const builtParams = new WeakMap<ParamsDict, BuiltParams>();

const versionOf = (params: ParamsDict): number => paramsVersions.get(params) ?? 0;

/**
 * For a parameter set, the parameter dicts found held in it and the set's version then: every
 * object EthereumJS builds asks again with its package's same dict, and checking it entry by
 * entry allocated more than the rest of decoding a transaction.
 */
const heldDicts = new WeakMap<ParamsDict, WeakMap<ParamsDict, number>>();

const sameEips = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((eip, index) => eip === b[index]);

/**
 * A `Common` whose hot paths do not redo work EthereumJS repeats on every object it builds.
 *
 * - Every transaction, block and VM constructor copies the `Common` and calls `updateParams`
 *   with its package's parameters (a legacy transaction twice), which deep-copies them and
 *   rebuilds the parameter cache over every hardfork: more CPU than running a simple call.
 *   Here parameters the set already holds change nothing, and a copy reuses the cache already
 *   built for the same set, version, hardfork and EIPs (caches are never changed once built).
 * - The EVM asks `isActivatedEIP` several times per opcode, and the stock answer scans the
 *   array of the hundred-odd active EIPs; here a set answers, rebuilt with the array.
 */
class ChainCommon extends Common {
  // `declare`: class fields would be reset after the base constructor has filled them in.
  declare private activeEips: Set<number> | undefined;
  /** The parameter set, and its version, that `_paramsCache` reflects. */
  declare private cacheBuiltFrom: ParamsDict | undefined;
  declare private cacheBuiltAt: number | undefined;

  override updateParams(params: ParamsDict): void {
    if (!this.holdsAll(params)) {
      paramsVersions.set(this._params, versionOf(this._params) + 1);
      super.updateParams(params);
    } else if (
      this.cacheBuiltFrom !== this._params ||
      this.cacheBuiltAt !== versionOf(this._params)
    ) {
      this._buildParamsCache();
    }
  }

  override isActivatedEIP(eip: number): boolean {
    return this.activeEips?.has(eip) ?? super.isActivatedEIP(eip);
  }

  protected override _buildParamsCache(): void {
    const version = versionOf(this._params);
    const hardfork = this.hardfork();
    const built = builtParams.get(this._params);
    if (
      built !== undefined &&
      built.version === version &&
      built.hardfork === hardfork &&
      sameEips(built.eips, this._eips)
    ) {
      this._paramsCache = built.cache;
    } else {
      super._buildParamsCache();
      builtParams.set(this._params, {
        version,
        hardfork,
        eips: [...this._eips],
        cache: this._paramsCache,
      });
    }
    this.cacheBuiltFrom = this._params;
    this.cacheBuiltAt = version;
  }

  protected override _buildActivatedEIPsCache(): void {
    super._buildActivatedEIPsCache();
    this.activeEips = new Set(this._activatedEIPsCache);
  }

  /** Whether applying `params` would leave the parameter set as it is. */
  private holdsAll(params: ParamsDict): boolean {
    const version = versionOf(this._params);
    let held = heldDicts.get(this._params);
    if (held?.get(params) === version) return true;
    if (!this.holdsEach(params)) return false;
    if (held === undefined) heldDicts.set(this._params, (held = new WeakMap()));
    held.set(params, version);
    return true;
  }

  private holdsEach(params: ParamsDict): boolean {
    for (const [eip, wanted] of Object.entries(params)) {
      const held = this._params[eip];
      if (held === undefined || held === null) return false;
      for (const [name, value] of Object.entries(wanted)) {
        if (held[name] !== value) return false;
      }
    }
    return true;
  }
}

/**
 * Builds the EthereumJS `Common` for a chain id: mainnet rules at {@link CHAIN_HARDFORK} from
 * block 0, with the node's WebAssembly crypto.
 */
export function createChainCommon(chainId: bigint): Common {
  return new ChainCommon({
    chain: { ...Mainnet, chainId: Number(chainId), name: `node-cli-${chainId}` },
    hardfork: CHAIN_HARDFORK,
    customCrypto: evmCrypto,
  });
}
