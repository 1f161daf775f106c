import { describe, expect, it } from '@jest/globals';
import {
  getAddress,
  formatEther as ethersFormatEther,
  parseUnits as ethersParseUnits,
} from 'ethers';
import { checksumAddress, hasValidChecksum, isAddress } from '../../src/shared/address.js';
import { formatEther, formatUnits, parseUnits } from '../../src/shared/units.js';

const ADDRESSES = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x0000000000000000000000000000000000000000',
  '0xffffffffffffffffffffffffffffffffffffffff',
  '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
];

describe('addresses', () => {
  it('checksums as EIP-55 (and ethers) do', () => {
    for (const address of ADDRESSES) {
      expect(checksumAddress(address)).toBe(getAddress(address));
      expect(checksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(getAddress(address));
    }
    expect(checksumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    );
  });

  it('accepts single-case input and refuses a wrong mixed-case checksum', () => {
    expect(hasValidChecksum('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(true);
    expect(hasValidChecksum('0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266')).toBe(true);
    expect(hasValidChecksum('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(true);
    expect(hasValidChecksum('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267')).toBe(false);
    expect(hasValidChecksum('0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
  });

  it('tells addresses from other text', () => {
    expect(isAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(true);
    expect(isAddress('f39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(false);
    expect(isAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb9226')).toBe(false);
    expect(isAddress('0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(false);
  });
});

describe('units', () => {
  it('formats as ethers does', () => {
    for (const wei of [0n, 1n, 10n ** 18n, 15n * 10n ** 17n, 123456789n, 10n ** 30n + 7n]) {
      expect(formatEther(wei)).toBe(ethersFormatEther(wei));
    }
    expect(formatUnits(-1500000000n, 9)).toBe('-1.5');
    expect(formatUnits(42n, 0)).toBe('42');
  });

  it('parses exact decimals and refuses what does not fit the unit', () => {
    expect(parseUnits('1.5', 18)).toBe(ethersParseUnits('1.5', 18));
    expect(parseUnits('20', 9)).toBe(20n * 10n ** 9n);
    expect(parseUnits('0.000000001', 9)).toBe(1n);
    expect(parseUnits('1.10', 1)).toBe(11n);
    expect(parseUnits('0.1', 0)).toBeUndefined();
    expect(parseUnits('1.0000000000000000001', 18)).toBeUndefined();
    expect(parseUnits('-1', 18)).toBeUndefined();
    expect(parseUnits('1e18', 0)).toBeUndefined();
    expect(parseUnits('', 0)).toBeUndefined();
  });
});
