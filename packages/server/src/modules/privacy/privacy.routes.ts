import { privacyApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, userOf } from '../../platform/routes';
import { erasePersonData, exportPersonData } from './privacy.service';

/** A person's data on request: the user's own lists, sends and events only (every part is scoped by the user). */
export const privacyRoutes = moduleRoutes(['privacy'], (serve, platform) => {
  const limit = perUserLimit('person-data', 60);

  serve(privacyApi.exportPerson, { config: limit }, async (request, reply) => {
    const { email, format } = request.body;
    const document = await exportPersonData(platform, userOf(request), email, format);
    return reply
      .header('content-type', format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="person-data.${format}"`)
      .send(document);
  });

  serve(privacyApi.erasePerson, { config: limit }, async (request) => {
    const counts = await erasePersonData(platform, userOf(request), request.body.email);
    const rows = Object.values(counts).reduce((sum, count) => sum + count, 0);
    return {
      status: true as const,
      message: `Erased ${rows} record${rows === 1 ? '' : 's'} about ${request.body.email}. The address is kept only as a hash, so it is never mailed again.`,
      data: counts,
    };
  });
});
