import { describe, expect, it } from '@jest/globals';
import { paramsBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import type { ParamsDict } from '@ethereumjs/common';
import { paramsEVM } from '@ethereumjs/evm';
import { paramsTx } from '@ethereumjs/tx';
import { paramsVM } from '@ethereumjs/vm';
import { CHAIN_HARDFORK, createChainCommon } from '../../src/daemon/chain/common.js';

const CUSTOM: ParamsDict = { 1559: { baseFeeMaxChangeDenominator: 4, elasticityMultiplier: 3 } };
const ALL_NAMES = [
  ...new Set(
    [paramsTx, paramsBlock, paramsEVM, paramsVM, CUSTOM].flatMap((dict) =>
      Object.values(dict).flatMap((config) => Object.keys(config)),
    ),
  ),
];

/** Every known parameter as `common` answers it ('missing' where it throws). */
function answers(common: Common): Record<string, string> {
  return Object.fromEntries(
    ALL_NAMES.map((name) => {
      try {
        return [name, String(common.param(name))];
      } catch {
        return [name, 'missing'];
      }
    }),
  );
}

/** EthereumJS's own Common with the node's chain configuration: the reference. */
const stockCommon = () =>
  new Common({
    chain: { ...Mainnet, chainId: 9000, name: 'node-cli-9000' },
    hardfork: CHAIN_HARDFORK,
  });

describe('chain Common', () => {
  it('answers parameters exactly like the stock Common through updates, copies and hardforks', () => {
    const ours = createChainCommon(9000n);
    const stock = stockCommon();
    // The same steps on both: what transaction, block and VM constructors do, plus overrides
    // through one copy that the others share, and a copy at an older hardfork.
    const copyWith =
      (...updates: ParamsDict[]) =>
      (common: Common): Common => {
        const copy = common.copy();
        for (const params of updates) copy.updateParams(params);
        return copy;
      };
    const steps: ((common: Common) => Common)[] = [
      (common) => common,
      copyWith(paramsTx),
      copyWith(paramsTx, paramsTx),
      copyWith(paramsBlock, paramsEVM, paramsVM),
      // Found held now, then overridden, then applied again: it must win back its values.
      copyWith(paramsBlock),
      copyWith(CUSTOM),
      copyWith(paramsBlock),
      copyWith(CUSTOM),
      copyWith(paramsTx),
      (common) => {
        const copy = common.copy();
        copy.setHardfork(Hardfork.London);
        copy.updateParams(paramsBlock);
        return copy;
      },
      (common) => {
        common.updateParams(paramsEVM);
        return common;
      },
    ];
    for (const step of steps) {
      const [a, b] = [step(ours), step(stock)];
      expect(answers(a)).toEqual(answers(b));
      expect(a.hardfork()).toBe(b.hardfork());
    }
    expect(answers(ours)).toEqual(answers(stock));
  });

  it('reports the same activated EIPs as the stock Common', () => {
    const ours = createChainCommon(9000n);
    const stock = stockCommon();
    const london = ours.copy();
    london.setHardfork(Hardfork.London);
    const stockLondon = stock.copy();
    stockLondon.setHardfork(Hardfork.London);
    const active = (common: Common) =>
      Array.from({ length: 8200 }, (_, eip) => eip).filter((eip) => common.isActivatedEIP(eip));
    expect(active(ours)).toEqual(active(stock));
    expect(active(london)).toEqual(active(stockLondon));
    expect(active(london).length).toBeLessThan(active(ours).length);
  });
});
