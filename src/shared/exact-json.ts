/**
 * JSON read from a client (REST bodies, sealed records) that refuses, beyond what fastify's own
 * parser refuses (empty text, invalid JSON, keys that would reach an object's prototype),
 * numbers a JavaScript number cannot hold exactly: `1000000000000000001` arrives as 10^18, and a
 * schema that also takes strings turns that into the string "1000000000000000000", so an amount
 * of wei would be sent rounded without a word. Such a number is refused, asking for a string.
 */
import { InvalidInputError } from './errors.js';

/** Keys JSON.parse keeps as own properties but that merging code would follow to a prototype. */
function poisoned(key: string, value: unknown): boolean {
  if (key === '__proto__') return true;
  return (
    key === 'constructor' &&
    typeof value === 'object' &&
    value !== null &&
    Object.prototype.hasOwnProperty.call(value, 'prototype')
  );
}

function inexact(value: unknown): boolean {
  return (
    typeof value === 'number' &&
    (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))
  );
}

/** Where a value sits, for the message: its key, or its index in an array. */
function place(key: string): string {
  return key === '' ? 'the top' : /^\d+$/.test(key) ? `item ${key}` : `"${key}"`;
}

/**
 * Parses `text`, or throws `InvalidInputError` saying what is wrong with it; `subject` names
 * the text in the message (`request body`).
 */
export function parseExactJson(text: string, subject: string): unknown {
  if (text.trim() === '') {
    throw new InvalidInputError(`${subject} is empty: send a JSON value`);
  }
  try {
    return JSON.parse(text, function (this: unknown, key: string, value: unknown) {
      if (poisoned(key, value)) {
        throw new InvalidInputError(`${subject}: the key "${key}" is not accepted`);
      }
      if (inexact(value)) {
        throw new InvalidInputError(
          `${subject}: the number at ${place(key)} is beyond what a JSON number carries ` +
            `exactly here (integers up to 2^53 - 1); send it as a decimal or 0x string`,
        );
      }
      return value;
    });
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(`${subject} is not valid JSON: ${(error as Error).message}`);
  }
}
