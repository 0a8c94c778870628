import { VERIFY_MESSAGES, verificationApi } from '@sendwell/contracts';
import { moduleRoutes, perUserLimit, sendCsv, userOf } from '../../platform/routes';
import {
  bulkCreditCheck,
  exportItems,
  getJob,
  listCreditCheck,
  listItems,
  listJobs,
  startListsVerification,
  startVerification,
  storeFile,
  storeText,
} from './verification.service';

const storeLimit = perUserLimit('verify-store', 60);

/** The Email Verification tool's calls (spec §7 verification tool). */
export const verificationRoutes = moduleRoutes(['verification'], (serve, platform) => {
  serve(verificationApi.textStore, { config: storeLimit, upload: { maxBytes: 4 * 1024 * 1024 } }, async (request) =>
    storeText(platform, userOf(request), request.body.emails),
  );
  serve(verificationApi.fileStore, { config: storeLimit, upload: { maxBytes: 8 * 1024 * 1024 } }, async (request) =>
    storeFile(platform, userOf(request), request.body.csvFile, request.body),
  );
  serve(
    verificationApi.bulkCreditCheck,
    { config: storeLimit, upload: { maxBytes: 4 * 1024 * 1024 } },
    async (request) => bulkCreditCheck(platform, userOf(request), request.body.emails),
  );
  serve(verificationApi.lastCheck, { config: storeLimit }, async (request) => {
    await startVerification(platform, userOf(request), request.body);
    return { status: true, message: VERIFY_MESSAGES.queued };
  });
  serve(verificationApi.creditCheck, async (request) => ({
    status: true,
    ...(await listCreditCheck(platform, userOf(request), request.body.mailingLists)),
  }));
  serve(verificationApi.verifyLists, { config: storeLimit }, async (request) => ({
    status: true,
    message: VERIFY_MESSAGES.queued,
    ...(await startListsVerification(platform, userOf(request), request.body)),
  }));
  serve(verificationApi.jobs, async (request) => listJobs(platform, userOf(request), request.query));
  serve(verificationApi.job, async (request) => ({ data: await getJob(platform, userOf(request), request.params.id) }));
  serve(verificationApi.items, async (request) =>
    listItems(platform, userOf(request), request.params.id, request.query),
  );
  serve(verificationApi.export, async (request, reply) =>
    sendCsv(
      reply,
      `verification-${request.params.id}.csv`,
      await exportItems(platform, userOf(request), request.params.id, request.query),
    ),
  );
});
