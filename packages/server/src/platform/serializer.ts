import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema';
import { z } from 'zod';

/**
 * Responses are written by fast-json-stringify (Fastify's own serializer) from the JSON
 * Schema of each route's zod response schema. Like a zod parse, it writes only the
 * declared properties, so a repository that selects a column too many cannot leak it;
 * unlike a zod parse per response, it costs almost nothing (B7: about a quarter of the
 * throughput of a list route went to validating its own output).
 */
export const zodResponseSerializer: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  const jsonSchema = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' });
  return fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
};
