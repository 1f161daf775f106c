import { describe, expect, it } from '@jest/globals';
import { BuildLead } from '../../src/daemon/chain/build-lead.js';

describe('build lead', () => {
  it('begins a block as long before its tick as the slowest of the last four builds', () => {
    const lead = new BuildLead();
    expect(lead.leadMs(1000)).toBe(0);
    lead.built(120);
    lead.built(40);
    expect(lead.leadMs(1000)).toBe(120);
    lead.built(10);
    lead.built(5);
    lead.built(8);
    expect(lead.leadMs(1000)).toBe(40);
  });

  it('never begins more than a quarter of the interval early, nor after the tick', () => {
    const lead = new BuildLead();
    lead.built(900);
    expect(lead.leadMs(1000)).toBe(250);
    expect(lead.leadMs(200)).toBe(50);
    const clockStep = new BuildLead();
    clockStep.built(-30);
    expect(clockStep.leadMs(1000)).toBe(0);
  });
});
