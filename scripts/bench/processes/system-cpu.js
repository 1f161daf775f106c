// Machine-wide CPU use from /proc/stat, to show how much of the machine other processes took
// while a load test ran (the benchmark shares its cores with whatever else is running).
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** Busy CPU seconds of all cores so far (everything but idle and iowait). */
export function systemBusySeconds() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const [user, nice, system, , , irq, softirq, steal] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}
