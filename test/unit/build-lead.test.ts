import { describe, expect, it } from '@jest/globals';
import { BuildLead } from '../../src/daemon/chain/build-lead.js';

describe('build lead', () => {
  it('begins a block as long before its tick as the slowest of the last four builds', () => {
    const lead = new BuildLead();
    expect(lead.leadMs(1000, 100)).toBe(0);
    lead.built(120, 100);
    lead.built(40, 100);
    expect(lead.leadMs(1000, 100)).toBe(120);
    lead.built(10, 100);
    lead.built(5, 100);
    lead.built(8, 100);
    expect(lead.leadMs(1000, 100)).toBe(40);
  });

  it('scales the lead to the transactions pending, never beyond what a recent build took', () => {
    const lead = new BuildLead();
    lead.built(200, 1000);
    expect(lead.leadMs(1000, 30)).toBe(6);
    expect(lead.leadMs(1000, 500)).toBe(100);
    expect(lead.leadMs(1000, 5000)).toBe(200);
    // An empty block's build is the least any block takes.
    lead.built(12, 0);
    expect(lead.leadMs(1000, 0)).toBe(12);
    expect(lead.leadMs(1000, 30)).toBe(12);
  });

  it('never begins more than a quarter of the interval early, nor after the tick', () => {
    const lead = new BuildLead();
    lead.built(900, 10);
    expect(lead.leadMs(1000, 10)).toBe(250);
    expect(lead.maxLeadMs(1000)).toBe(250);
    expect(lead.leadMs(200, 10)).toBe(50);
    const clockStep = new BuildLead();
    clockStep.built(-30, 10);
    expect(clockStep.leadMs(1000, 10)).toBe(0);
  });
});
