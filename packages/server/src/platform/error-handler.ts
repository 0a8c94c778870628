import type { TErrorBody, TValidationErrorBody } from '@sendwell/contracts';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { CpuTaskError } from './cpu-pool';
import { isPoolExhausted } from './db';
import { HttpError, ValidationError } from './errors';

// The HTTP app's error handler, apart from the errors themselves: every process throws
// HttpError, only the web role loads the schema provider this needs.

const validationBody = (errors: Record<string, string[]>): TValidationErrorBody => ({
  message: Object.values(errors)[0]?.[0] ?? 'The given data was invalid.',
  errors,
});

/**
 * One place that turns errors into answers: schema failures and ValidationError → 422,
 * HttpError → its status with `{status: false, message}`, no free database connection or
 * no room in the CPU pool → 503, anything else → 500 with a message that leaks nothing, logged with the request id.
 */
export const handleError = (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const errors: Record<string, string[]> = {};
    for (const issue of error.validation) {
      const field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.') || '_';
      errors[field] ??= [];
      errors[field].push(issue.message ?? 'This field is invalid.');
    }
    return reply.code(422).send(validationBody(errors));
  }
  if (error instanceof ValidationError) return reply.code(422).send(validationBody(error.errors));
  if (error instanceof HttpError) {
    const body: TErrorBody = {
      status: false,
      message: error.message,
      ...(error.code ? { code: error.code } : {}),
      ...(error.errorData !== undefined ? { errorData: error.errorData } : {}),
    };
    return reply.code(error.statusCode).send(body);
  }
  const statusCode = (error as FastifyError).statusCode;
  if (statusCode && statusCode >= 400 && statusCode < 500) {
    // Fastify's own client errors (bad JSON, body too large): their messages are safe to show.
    return reply.code(statusCode).send({ status: false, message: error.message } satisfies TErrorBody);
  }
  const isCpuBusy = error instanceof CpuTaskError && error.kind === 'busy';
  if (isPoolExhausted(error) || isCpuBusy) {
    // Every connection was busy for DB_ACQUIRE_TIMEOUT_SECONDS, or the CPU pool's queue is full:
    // say so now rather than hold the caller.
    request.log.warn(
      isCpuBusy ? 'the CPU pool had no room; answered 503' : 'no database connection free in time; answered 503',
    );
    return reply
      .code(503)
      .header('retry-after', '5')
      .send({
        status: false,
        message: 'Sendwell is busy right now. Please try again in a moment.',
        code: 'BUSY',
      } satisfies TErrorBody);
  }
  request.log.error({ err: error }, 'request failed');
  return reply
    .code(500)
    .send({ status: false, message: 'Something went wrong on our side. Please try again.' } satisfies TErrorBody);
};
