/**
 * JSON input of the commands that take a document (`crypto sign|verify|encrypt|decrypt`): a
 * file named on the command line, or stdin when the name is absent or `-`.
 */
import { readFileSync } from 'node:fs';
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

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new JsonInputError('no input: give a FILE or pipe JSON to stdin');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The parsed JSON of `file` (or stdin); must be an object when `objectOnly`. */
export async function readJsonInput(file: string | undefined, objectOnly = true): Promise<unknown> {
  const source = file === undefined || file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = source === 'stdin' ? await readStdin() : readFileSync(source, 'utf8');
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
