import { suppressionApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, sendCsv, userOf } from '../../platform/routes';
import {
  clearAllSuppressions,
  clearSuppressions,
  exportSuppressions,
  listSuppressions,
  reclassifySuppression,
  removeSuppression,
} from './suppression.service';

const editLimit = perUserLimit('suppression-edit', 120);

/** What a Clean (of some addresses or of all) answers: how many list memberships it ended. */
const cleanedAnswer = (cleaned: number) => ({
  status: true,
  message: `Unsubscribed from ${cleaned} list membership${cleaned === 1 ? '' : 's'}.`,
  cleaned,
});

/** The Bounces and Suppression page's calls (spec §2 screen 11, §7). */
export const suppressionRoutes = moduleRoutes(['suppression'], (serve, platform) => {
  serve(suppressionApi.list, async (request) => listSuppressions(platform, userOf(request), request.query));
  serve(suppressionApi.export, async (request, reply) =>
    sendCsv(reply, 'suppressions.csv', exportSuppressions(platform, userOf(request), request.query)),
  );
  serve(suppressionApi.clear, { config: editLimit }, async (request) => {
    const ids = Array.isArray(request.body.bounce_id) ? request.body.bounce_id : [request.body.bounce_id];
    return cleanedAnswer(await clearSuppressions(platform, userOf(request), ids));
  });
  serve(suppressionApi.clearAll, { config: editLimit }, async (request) =>
    cleanedAnswer(await clearAllSuppressions(platform, userOf(request))),
  );
  serve(suppressionApi.reclassify, { config: editLimit }, async (request) => {
    await reclassifySuppression(platform, userOf(request), request.params.id, request.body.type);
    return { status: true, message: `Now listed as ${request.body.type}.` };
  });
  serve(suppressionApi.remove, { config: editLimit }, async (request) => {
    await removeSuppression(platform, userOf(request), request.params.id);
    return { status: true, message: 'The address is no longer suppressed: your next sends include it.' };
  });
});
