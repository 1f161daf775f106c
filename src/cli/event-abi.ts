/**
 * Decoding logs with a contract ABI for `logs watch --abi`: the file may hold a plain ABI
 * array or a compiled artifact with an `abi` field (Hardhat, Foundry, solc output).
 */
import { Errors } from '@oclif/core';
import { Interface, Result, type InterfaceAbi } from 'ethers';
import { readBoundedTextSync } from '../shared/bounded-read.js';

/** The JSON form of a decoded value: bigints as decimal strings, tuples as lists. */
export type DecodedValue = string | number | boolean | null | DecodedValue[];

/** A log decoded with the ABI: the event name and its arguments by name (or position). */
export interface DecodedEvent {
  name: string;
  args: Record<string, DecodedValue>;
}

/** Raw log fields the decoder reads. */
export interface EncodedLog {
  topics: readonly string[];
  data: string;
}

/** Far above any ABI or compiled artifact; a file past it (/dev/zero) is refused, not read on. */
const MAX_ABI_FILE_BYTES = 64 * 1024 * 1024;

/** Reads an ABI file; a missing, unreadable or ABI-less file is a usage error (exit 2). */
export function loadAbi(path: string): Interface {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readBoundedTextSync(path, MAX_ABI_FILE_BYTES));
  } catch (error) {
    throw new Errors.CLIError(`cannot read ABI file ${path}: ${(error as Error).message}`, {
      exit: 2,
    });
  }
  const abi = Array.isArray(parsed) ? parsed : (parsed as { abi?: unknown } | null)?.abi;
  if (!Array.isArray(abi))
    throw new Errors.CLIError(
      `ABI file ${path} holds neither an ABI array nor an artifact with an "abi" array`,
      { exit: 2 },
    );
  try {
    return new Interface(abi as InterfaceAbi);
  } catch (error) {
    throw new Errors.CLIError(`invalid ABI in ${path}: ${(error as Error).message}`, { exit: 2 });
  }
}

function toJsonValue(value: unknown): DecodedValue {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Result || Array.isArray(value))
    return Array.from(value as unknown[], (entry) => toJsonValue(entry));
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (value === null || value === undefined) return null;
  return String(value);
}

/** The event of `log` when the ABI knows its signature, otherwise undefined. */
export function decodeLog(abi: Interface, log: EncodedLog): DecodedEvent | undefined {
  let parsed: ReturnType<Interface['parseLog']>;
  try {
    parsed = abi.parseLog({ topics: [...log.topics], data: log.data });
  } catch {
    // A log whose topic matches an event but whose data does not fit it is shown undecoded.
    return undefined;
  }
  if (parsed === null) return undefined;
  const args: Record<string, DecodedValue> = {};
  parsed.fragment.inputs.forEach((input, index) => {
    args[input.name === '' ? String(index) : input.name] = toJsonValue(parsed.args[index]);
  });
  return { name: parsed.name, args };
}
