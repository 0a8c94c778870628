import { SPAM_TEST_MESSAGES, spamTestApi, testInboxApi } from '@sendwell/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TPlatform } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { routesFor, userOf } from '../../platform/routes';
import {
  analyseTestInboxMessage,
  getSpamTest,
  listSpamTests,
  rawOfSpamTest,
  saveSpamTestAsTemplate,
  startSpamTest,
} from './spam-test.service';

/** A spam test costs credits and sends mail: a handful a minute is plenty for a person. */
const sendLimit = { rateLimit: { name: 'spam-test-send', limit: 20, windowSeconds: 600, per: 'user' as const } };

/** The spam test's calls (spec §7 spam test) and its history. */
export const spamTestRoutes: FastifyPluginAsyncZod<{ platform: TPlatform }> = async (app, { platform }) => {
  const serve = routesFor(app, ['spam-test']);

  serve(spamTestApi.send, { config: sendLimit, bodyLimit: 4 * 1024 * 1024 }, async (request) =>
    startSpamTest(platform, userOf(request), request.body),
  );
  serve(spamTestApi.result, async (request) => ({
    status: true,
    data: await getSpamTest(platform, userOf(request), request.params.id),
  }));
  serve(spamTestApi.postResult, async (request) => {
    const test = await getSpamTest(platform, userOf(request), request.body.sentRecord);
    return {
      status: test.status === 'scored',
      id: test.id,
      preview: request.body.preview ?? false,
      message: test.status === 'scored' ? `Scored ${test.score} out of 10.` : SPAM_TEST_MESSAGES.waiting,
    };
  });
  serve(spamTestApi.saveAsTemplate, async (request) => ({
    status: true,
    message: SPAM_TEST_MESSAGES.saved,
    data: await saveSpamTestAsTemplate(platform, userOf(request), request.body),
  }));
  serve(spamTestApi.history, async (request) => listSpamTests(platform, userOf(request), request.query));
  serve(spamTestApi.raw, async (request, reply) =>
    reply
      .header('content-type', 'message/rfc822')
      .header('content-disposition', `attachment; filename="spam-test-${request.params.id}.eml"`)
      .send(await rawOfSpamTest(platform, userOf(request), request.params.id)),
  );

  // A test-inbox message gets the spam test's analysis on its page (the test inbox keeps the
  // message; what a receiver makes of it is the spam test's to say).
  serve(testInboxApi.analysis, async (request) => {
    const found = await analyseTestInboxMessage(platform, userOf(request), request.params.id);
    if (!found) throw notFound('This message does not exist.');
    return { data: found };
  });
};
