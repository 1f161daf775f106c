/**
 * JSON input of the commands that take a document (`crypto sign|verify|encrypt|decrypt`): a
 * file named on the command line, or stdin when the name is absent or `-`.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { Args } from '@oclif/core';

/** The optional FILE argument of those commands. */
export const jsonFileArg = Args.string({
  name: 'file',
  description: 'JSON file to read; stdin when absent or "-".',
  required: false,
  // oclif would otherwise take piped stdin as the argument's value; stdin is the document here.
  ignoreStdin: true,
});

/** Why the input could not be used; commands report it as a usage error (exit 2). */
export class JsonInputError extends Error {}

/**
 * The most a JSON input may hold, far above any REST body limit: reading stops there, so that a
 * FILE such as /dev/zero (or stdin from it) is refused instead of filling memory without end.
 */
export const MAX_JSON_INPUT_BYTES = 64 * 1024 * 1024;

async function readAll(stream: Readable, source: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > MAX_JSON_INPUT_BYTES) {
        throw new JsonInputError(`${source} holds more than 64 MiB: not a JSON document to send`);
      }
      chunks.push(chunk as Buffer);
    }
  } finally {
    if (stream !== process.stdin) stream.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new JsonInputError('no input: give a FILE or pipe JSON to stdin');
  }
  return readAll(process.stdin, 'stdin');
}

/** The parsed JSON of `file` (or stdin); must be an object when `objectOnly`. */
export async function readJsonInput(file: string | undefined, objectOnly = true): Promise<unknown> {
  const source = file === undefined || file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = source === 'stdin' ? await readStdin() : await readAll(createReadStream(source), source);
  } catch (error) {
    if (error instanceof JsonInputError) throw error;
    throw new JsonInputError(`cannot read ${source}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JsonInputError(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (objectOnly && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new JsonInputError(`${source} must hold a JSON object`);
  }
  return value;
}
