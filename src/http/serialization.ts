import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

type Serializer = (document: unknown) => string;

/** Fastify's own response serialiser compiler (fast-json-stringify), as Fastify builds it by default. */
const compile = SerializerSelector()({}, {});
const serializers = new Map<string, Serializer>();

/**
 * Fastify's default response serialisers, compiled once per schema in this process and shared by every
 * listener and gateway it starts (ADR 0044): the same error envelopes and views appear on many routes of
 * four listeners, and compiling them was a fifth of a gateway's start. A serialiser is a pure function.
 * The routes add no shared schemas (`addSchema`), so the default compiler's external schemas are empty.
 */
export const cachedSerializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const key = JSON.stringify(route.schema);
  let serialize = serializers.get(key);
  if (serialize === undefined) {
    serialize = compile(route as Parameters<typeof compile>[0]);
    serializers.set(key, serialize);
  }
  return serialize;
};
