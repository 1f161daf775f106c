/**
 * REST route validators and response serializers compiled at a route's first use rather than
 * at start-up. fastify compiles every route's schemas when the server starts (ajv: each schema
 * checked against its meta-schema, then code generated; fast-json-stringify: a serializer per
 * response status); for this interface that was about 90 ms of the daemon's start, most of it
 * for routes a node may never be asked. The compilers are fastify's own
 * (`@fastify/ajv-compiler`, `@fastify/fast-json-stringify-compiler`) with fastify's options, so
 * what is accepted, how a refusal is worded and what is sent do not change: only when the work
 * is done, with one addition: query strings are checked more strictly (`strict-query.ts`).
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { strictQuery, type RouteValidator } from './strict-query.js';

/** Wraps `compile` so that it runs at the first call of what it compiles. */
function compileOnFirstUse<Fn extends (...args: never[]) => unknown>(
  compile: () => Fn,
  copyErrors: boolean,
): Fn {
  let compiled: Fn | undefined;
  const lazy = ((...args: Parameters<Fn>) => {
    compiled ??= compile();
    const result = compiled(...args);
    // fastify reads a validator's failures from its `errors` property after calling it.
    if (copyErrors)
      (lazy as { errors?: unknown }).errors = (compiled as { errors?: unknown }).errors;
    return result;
  }) as Fn;
  return lazy;
}

type BuildValidator = ReturnType<typeof AjvCompiler>;
type BuildSerializer = ReturnType<typeof SerializerSelector>;

/**
 * A `compilersFactory.buildValidator` for fastify whose validators compile on first use, the
 * query strings' with `strictQuery`.
 */
export function lazyValidatorFactory(): BuildValidator {
  const build = AjvCompiler() as (...args: unknown[]) => (route: unknown) => never;
  return ((...factoryArgs: unknown[]) => {
    const compile = build(...factoryArgs);
    return (route: { httpPart?: string }) =>
      compileOnFirstUse(() => {
        const validate = compile(route) as RouteValidator;
        return route.httpPart === 'querystring' ? strictQuery(validate) : validate;
      }, true);
  }) as unknown as BuildValidator;
}

/** A `compilersFactory.buildSerializer` for fastify whose serializers compile on first use. */
export function lazySerializerFactory(): BuildSerializer {
  const build = SerializerSelector() as (...args: unknown[]) => (route: unknown) => never;
  return ((...factoryArgs: unknown[]) => {
    const compile = build(...factoryArgs);
    return (route: unknown) => compileOnFirstUse(() => compile(route), false);
  }) as unknown as BuildSerializer;
}
