import { createHash } from 'node:crypto';
import {
  canonicalEmail,
  SEND_MESSAGES,
  TRANSACTIONAL_MESSAGES,
  type TTransactionalResponse,
  type ZTransactionalRequest,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { isUniqueViolation } from '../../platform/db';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { createSourcedSend } from '../delivery/delivery.service';
import { listTemplates, resolveSender } from './send-email.service';

type TRequest = z.output<typeof ZTransactionalRequest>;

/** What makes two calls the same call: every parameter but the key itself, in a stable form. */
const requestHashOf = (request: TRequest) => {
  const { idempotency_key: _key, ...rest } = request;
  const sorted = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([key, item]) => [key, sorted(item)]),
        )
      : value;
  return createHash('sha256')
    .update(JSON.stringify(sorted(rest)))
    .digest();
};

/** An earlier call's send under the same key: the same send again, or a 409 when the parameters differ. */
const replayOf = async (platform: TPlatform, userId: number, key: string, requestHash: Buffer) => {
  const earlier = await platform.db
    .selectFrom('transactional_requests')
    .select(['send_id', 'queued', 'request_hash'])
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  if (!earlier) return null;
  if (!earlier.request_hash.equals(requestHash)) {
    throw new HttpError(409, TRANSACTIONAL_MESSAGES.keyReused, 'IDEMPOTENCY_KEY_REUSED');
  }
  return {
    status: true as const,
    message: TRANSACTIONAL_MESSAGES.replayed,
    send_id: earlier.send_id,
    queued: earlier.queued,
    replayed: true,
  };
};

/**
 * `POST /api/email/transactional` (issue 48 §2): a saved template to one address with merge
 * data, a send of the `transactional` source through the engine every send goes through
 * (the sender read as Send Email reads it, suppression, tracking, events and webhooks).
 * Exactly once per idempotency key: the key's row and the send commit together, and a
 * second call with the key, even one at the same moment (the unique key makes it wait for
 * the first), answers the first one's send.
 */
export const sendTransactional = async (
  platform: TPlatform,
  userId: number,
  request: TRequest,
  headerKey?: string,
): Promise<TTransactionalResponse> => {
  const key = headerKey?.trim() || request.idempotency_key;
  if (key !== undefined && (key.length === 0 || key.length > 255)) {
    throw new ValidationError({ idempotency_key: ['An idempotency key has 1 to 255 characters.'] });
  }
  const requestHash = requestHashOf(request);
  if (key) {
    const replay = await replayOf(platform, userId, key, requestHash);
    if (replay) return replay;
  }
  const template = (await listTemplates(platform.db, userId)).find((item) => item.id === request.template_id);
  if (!template) throw notFound(TRANSACTIONAL_MESSAGES.templateNotFound);
  const email = canonicalEmail(request.to);
  if (email === null) throw new ValidationError({ to: ['Please enter a valid email address.'] });
  const subject = request.subject ?? template.subject;
  if (subject.trim() === '') throw new ValidationError({ subject: [SEND_MESSAGES.subjectRequired] });
  const sender = await resolveSender(platform, userId, {
    account: request.account,
    from: '',
    senderName: request.senderName ?? '',
    alias: request.alias ?? '',
    useSubdomain: request.useSubdomain ?? false,
  });
  try {
    return await platform.db.transaction().execute(async (trx) => {
      const { sendId, recipients } = await createSourcedSend(trx, platform, userId, {
        source: 'transactional',
        accountId: sender.account.id,
        fromName: sender.fromName,
        fromAddress: sender.fromAddress,
        subject,
        html: template.html,
        replyTo: request.reply_to,
        trackOpens: request.track_opens,
        trackClicks: request.track_clicks,
        recipients: [{ email, name: request.name, fields: request.data }],
      });
      const queued = recipients > 0;
      if (key) {
        await trx
          .insertInto('transactional_requests')
          .values({ user_id: userId, idempotency_key: key, request_hash: requestHash, send_id: sendId, queued })
          .execute();
      }
      return {
        status: true as const,
        message: queued ? TRANSACTIONAL_MESSAGES.queued : TRANSACTIONAL_MESSAGES.suppressed,
        send_id: sendId,
        queued,
        replayed: false,
      };
    });
  } catch (error) {
    // Another call with the key committed first (we waited on its row): its send is the one.
    if (key && isUniqueViolation(error)) {
      const replay = await replayOf(platform, userId, key, requestHash);
      if (replay) return replay;
    }
    throw error;
  }
};
