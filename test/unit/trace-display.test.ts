import { describe, expect, it } from '@jest/globals';
import { ContractNames } from '../../src/cli/contract-names.js';
import { callTreeLines, prestateLines } from '../../src/cli/trace-display.js';

const SENDER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const CONTRACT = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('trace display', () => {
  it('prints the addresses of calls, self-destructs and the prestate checksummed', async () => {
    const names = await ContractNames.load(undefined, []);
    const lines = callTreeLines(
      {
        type: 'CALL',
        from: SENDER.toLowerCase(),
        to: CONTRACT.toLowerCase(),
        gas: '0x5208',
        gasUsed: '0x5208',
        input: '0x',
        calls: [
          {
            type: 'SELFDESTRUCT',
            from: CONTRACT.toLowerCase(),
            to: SENDER.toLowerCase(),
            gas: '0x0',
            gasUsed: '0x0',
            input: '0x',
          },
        ],
      },
      names,
    ).join('\n');
    expect(lines).toContain(CONTRACT);
    expect(lines).toContain(`${CONTRACT} → ${SENDER}`);
    expect(lines).not.toContain(CONTRACT.toLowerCase());
    const prestate = prestateLines({ [SENDER.toLowerCase()]: { balance: '0x0' } }, names);
    expect(prestate[0]).toBe(SENDER);
  });
});
