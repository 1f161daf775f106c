/**
 * Human views of `tx trace`: the call tree (calls, values, gas, reverts with their reasons,
 * logs; names from the contract registry or `--abi`), the touched accounts of the prestate
 * tracer, a summary of the struct logger's steps and the selector counts of the 4byte tracer.
 * `--json` prints geth's JSON instead.
 */
import { formatEther } from 'ethers';
import { checksumAddress } from '../shared/address.js';
import type { CallTraceFrame, PrestateAccount, StructLogResult } from '../shared/trace-results.js';
import type { ContractNames } from './contract-names.js';
import { colours, keyValueLines } from './key-value-lines.js';

function value(hex: string | undefined): string {
  const wei = BigInt(hex ?? '0x0');
  return wei === 0n ? '' : `  ${colours.yellow(`${formatEther(wei)} ETH`)}`;
}

function target(frame: CallTraceFrame, names: ContractNames): string {
  if (frame.to === undefined) return colours.dim('(no contract)');
  const name = names.nameOf(frame.to);
  const address = checksumAddress(frame.to);
  return name === undefined
    ? colours.cyan(address)
    : `${colours.cyan(name)}${colours.dim(`(${address})`)}`;
}

function callLabel(frame: CallTraceFrame, names: ContractNames): string {
  if (frame.type === 'SELFDESTRUCT') {
    return `${checksumAddress(frame.from)} → ${target(frame, names)}`;
  }
  const created = frame.type === 'CREATE' || frame.type === 'CREATE2';
  if (created)
    return `${target(frame, names)} ${colours.dim(`(${(frame.input.length - 2) / 2} bytes of init code)`)}`;
  const decoded = names.decodeCall(frame.to, frame.input);
  if (decoded !== undefined)
    return `${target(frame, names)}.${colours.bold(decoded.label)}(${decoded.args})`;
  const selector = frame.input.length >= 10 ? frame.input.slice(0, 10) : frame.input;
  return `${target(frame, names)} ${colours.dim(selector === '0x' ? '(no input)' : `input ${selector}…`)}`;
}

function outcome(frame: CallTraceFrame, names: ContractNames): string {
  if (frame.error === undefined) return colours.green('✓');
  let reason = frame.revertReason;
  if (reason === undefined && frame.output !== undefined) {
    const custom = names.decodeError(frame.to, frame.output);
    if (custom !== undefined) reason = `${custom.name}(${custom.args.toArray().join(', ')})`;
  }
  return colours.red(`✗ ${frame.error}${reason === undefined ? '' : `: ${reason}`}`);
}

function logLine(log: NonNullable<CallTraceFrame['logs']>[number], names: ContractNames): string {
  const event = names.decodeLog(log.address, log.topics, log.data);
  const shown =
    event === undefined
      ? `log ${log.topics[0] ?? '(no topics)'} ${colours.dim(`(${(log.data.length - 2) / 2} bytes)`)}`
      : `emit ${event.name}(${event.args.toArray().join(', ')})`;
  return colours.magenta(shown);
}

function frameLines(
  frame: CallTraceFrame,
  names: ContractNames,
  prefix: string,
  childPrefix: string,
): string[] {
  const gas =
    frame.type === 'SELFDESTRUCT'
      ? ''
      : colours.dim(`  gas ${BigInt(frame.gasUsed)}/${BigInt(frame.gas)}`);
  const lines = [
    `${prefix}${colours.bold(frame.type)} ${callLabel(frame, names)}${value(frame.value)}${gas}  ${outcome(frame, names)}`,
  ];
  const calls = frame.calls ?? [];
  const logs = frame.logs ?? [];
  const children: Array<{ log?: (typeof logs)[number]; call?: CallTraceFrame }> = [];
  let next = 0;
  calls.forEach((call, index) => {
    while (next < logs.length && Number(logs[next].position) <= index) {
      children.push({ log: logs[next++] });
    }
    children.push({ call });
  });
  for (; next < logs.length; next++) children.push({ log: logs[next] });
  children.forEach((child, index) => {
    const last = index === children.length - 1;
    const branch = childPrefix + (last ? '└─ ' : '├─ ');
    const below = childPrefix + (last ? '   ' : '│  ');
    if (child.call !== undefined) lines.push(...frameLines(child.call, names, branch, below));
    else lines.push(`${branch}${logLine(child.log!, names)}`);
  });
  return lines;
}

/** The call tree, one line per call, log and self-destruct. */
export function callTreeLines(top: CallTraceFrame, names: ContractNames): string[] {
  return frameLines(top, names, '', '');
}

/** Each touched account with what it held before the transaction. */
export function prestateLines(
  accounts: Record<string, PrestateAccount>,
  names: ContractNames,
): string[] {
  const lines: string[] = [];
  for (const [address, account] of Object.entries(accounts)) {
    const name = names.nameOf(address);
    lines.push(
      colours.cyan(checksumAddress(address)) + (name === undefined ? '' : ` ${colours.bold(name)}`),
    );
    const entries: Array<[string, string]> = [
      ['balance', `${formatEther(BigInt(account.balance ?? '0x0'))} ETH`],
      ['nonce', String(account.nonce ?? 0)],
    ];
    if (account.code !== undefined)
      entries.push(['code', `${(account.code.length - 2) / 2} bytes`]);
    for (const [slot, word] of Object.entries(account.storage ?? {}))
      entries.push([`slot ${slot}`, word]);
    lines.push(...keyValueLines(entries, '  '));
  }
  return lines;
}

/** Gas, outcome and the most frequent opcodes of a struct log. */
export function structLogLines(result: StructLogResult): string[] {
  const counts = new Map<string, number>();
  for (const step of result.structLogs) counts.set(step.op, (counts.get(step.op) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 10);
  const failure = result.structLogs.find((step) => step.error !== undefined);
  return [
    ...keyValueLines([
      ['steps', String(result.structLogs.length)],
      ['gas used', String(result.gas)],
      [
        'outcome',
        result.failed
          ? colours.red(
              `failed${failure ? `: ${failure.error} at ${failure.op} (pc ${failure.pc}, depth ${failure.depth})` : ''}`,
            )
          : colours.green('succeeded'),
      ],
      ['return value', result.returnValue === '0x' ? colours.dim('none') : result.returnValue],
      ['max depth', String(Math.max(0, ...result.structLogs.map((step) => step.depth)))],
    ]),
    colours.bold('most frequent opcodes'),
    ...keyValueLines(
      top.map(([op, count]) => [op, String(count)]),
      '  ',
    ),
  ];
}

/** Selector counts, with the function's name where an ABI knows the selector. */
export function fourByteLines(counts: Record<string, number>, names: ContractNames): string[] {
  return keyValueLines(
    Object.entries(counts).map(([key, count]) => {
      const name = names.functionOf(key.slice(0, 10));
      return [key, `${count}${name === undefined ? '' : `  ${colours.dim(name)}`}`];
    }),
  );
}
