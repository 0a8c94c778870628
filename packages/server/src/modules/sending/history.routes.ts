import { Readable } from 'node:stream';
import { historyApi } from '@sendwell/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { routesFor } from '../../platform/routes';
import {
  cancelScheduled,
  deleteScheduled,
  editEmailData,
  editScheduled,
  historyCounts,
  historyDetails,
  historyExport,
  listHistory,
  listScheduled,
  removeCancel,
  resendFromHistory,
} from './history.service';

const editLimit = { rateLimit: { name: 'history-edit', limit: 120, windowSeconds: 600, per: 'user' as const } };

/** The History and Scheduled Emails pages' calls. */
export const historyRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['history']);
  const userOf = (request: FastifyRequest) => request.session!.userId;

  serve(historyApi.list, async (request) => listHistory(platform, userOf(request), request.query));
  serve(historyApi.counts, async (request) => historyCounts(platform, userOf(request), request.params.id));
  serve(historyApi.resend, { config: editLimit }, async (request) => ({
    status: true,
    message: 'Your email is on its way again.',
    id: await resendFromHistory(platform, userOf(request), request.body.accountId, request.body.id),
  }));
  serve(historyApi.details, async (request) =>
    historyDetails(platform, userOf(request), request.params.accountId, request.params.id, request.query),
  );
  serve(historyApi.export, async (request, reply) => {
    const { accountId, id } = request.params;
    const rows = historyExport(platform, userOf(request), accountId, id, request.query);
    // The first chunk is read here, so a send that is not the user's answers 404, not a broken download.
    const first = await rows.next();
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="history-${id}.csv"`)
      .send(
        Readable.from(
          (async function* () {
            if (!first.done) yield first.value;
            yield* rows;
          })(),
        ),
      );
  });
  serve(historyApi.editEmailData, async (request) => editEmailData(platform, userOf(request), request.params.id));
  serve(historyApi.scheduledEditData, async (request) => editEmailData(platform, userOf(request), request.params.id));

  serve(historyApi.scheduled, async (request) => listScheduled(platform, userOf(request), request.query));
  serve(historyApi.editScheduled, { config: editLimit }, async (request) => {
    await editScheduled(platform, userOf(request), request.params.id, request.body);
    return { status: true, message: 'Your scheduled email was saved.' };
  });
  serve(historyApi.cancelScheduled, { config: editLimit }, async (request) => {
    await cancelScheduled(platform, userOf(request), request.params.id);
    return { status: true, message: 'The scheduled email was cancelled.' };
  });
  serve(historyApi.removeCancel, { config: editLimit }, async (request) => {
    await removeCancel(platform, userOf(request), request.params.id);
    return { status: true, message: 'The email is scheduled again.' };
  });
  serve(historyApi.deleteScheduled, { config: editLimit }, async (request) => {
    await deleteScheduled(platform, userOf(request), request.params.id);
    return { status: true, message: 'The email was deleted.' };
  });
};
