/**
 * `debug_verbosity`: the daemon's log level, read and changed at run time. geth takes its
 * verbosity number (0 silent ... 5 trace); this node also takes the level's name, and answers
 * with the level in effect. `debug_vmodule` (per-module levels) stays unsupported: the node's
 * log has one level (`unsupported.ts`).
 */
import { LOG_LEVELS, levelOfVerbosity, type LogLevel } from '../../shared/log-levels.js';
import type { DaemonLogger } from '../logger.js';
import { defineMethod, type MethodDefinition } from '../rpc/registry.js';

const levelSchema = {
  description: `a verbosity from 0 (silent) to 5 (trace) or a level name (${LOG_LEVELS.join(', ')})`,
  oneOf: [
    { type: 'integer', minimum: 0, maximum: LOG_LEVELS.length - 1 },
    { type: 'string', enum: [...LOG_LEVELS] },
  ],
};

export function debugLoggingMethods(logger: DaemonLogger): MethodDefinition[] {
  return [
    defineMethod<[number | LogLevel | undefined]>({
      name: 'debug_verbosity',
      params: [{ name: 'level', schema: levelSchema, optional: true }],
      handler: ([requested]) => {
        if (requested !== undefined) {
          const level =
            typeof requested === 'number' ? (levelOfVerbosity(requested) as LogLevel) : requested;
          const previous = logger.level();
          logger.setLevel(level);
          // Logged at warn so that it is seen whatever the old and new levels are.
          logger.warn('log level changed', { from: previous, to: level });
        }
        return logger.level();
      },
    }),
  ];
}
