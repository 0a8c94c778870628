import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute, ZIdParams } from '../http/routes';
import { pagedResponse, pageQuery } from '../paging/paging';
import { ZStorageId } from '../sending/sending';
import { counted, pluralOf } from '../text/plural';

/** Spec §9: at most 10,000 addresses at once; one credit per address not already checked. */
export const VERIFY_MAX_ADDRESSES = 10_000;
export const VERIFY_MESSAGES = {
  tooMany: `At most ${VERIFY_MAX_ADDRESSES.toLocaleString('en-US')} emails can be verified at once.`,
  none: 'Paste or upload at least one email address.',
  queued: 'Your request is in the queue... It takes 1 to 5 minutes; the page shows the results as they come.',
  /** Spec §5, the verification tool's variant. */
  selectEmail: 'Please upload your csv file or select your email field first!',
  /** The verdict's reason when every mail server of a domain is on a private network (R35). */
  notPublic: "The domain's mail server is not on the public internet.",
  failed: 'The verification could not be finished. The credits of the addresses it did not check are back.',
  /**
   * The verdict's reason when the server's DNS resolver does not find names that must exist
   * (R48): its "no such domain" cannot be believed, so the address is unknown, and refunded.
   */
  resolverBroken:
    "Not checked: this server's DNS resolver does not find names that must exist, so its answers cannot be trusted.",
} as const;

/** What the user is told about a job whose addresses the broken resolver left unknown (R48). */
export const resolverNotice = (count: number, isRefunded = true) =>
  `${counted(count, { one: 'address was', other: 'addresses were' })} not checked: this server's DNS resolver does not find names that must exist (such as gmail.com), so its answers cannot be trusted. ${pluralOf(count, { one: 'It is', other: 'They are' })} unknown, ${
    isRefunded ? `${pluralOf(count, { one: 'its credit is', other: 'their credits are' })} back, ` : ''
  }and the operator has been told. Verify again once it is fixed.`;

/** An entry the tool will not check, as the confirmation lists it: a line or row and why. */
export const ZVerifySkippedEntry = z.object({ line: z.number().int(), text: z.string(), reason: z.string() });
/** Entries listed in the confirmation at most (the counts cover them all). */
export const VERIFY_SKIPPED_SHOWN = 100;

export const VERDICTS = ['valid', 'invalid', 'unknown'] as const;

/** Spec §3 "Verify result" (what the store calls answer), with the draft job's id as `listId`. */
export const ZVerifyStoreResult = z.object({
  status: z.boolean(),
  data: z.object({
    alreadyCheckedCount: z.number().int(),
    totalDuplicate: z.number().int(),
    alreadyChecked: z.array(z.object({ email: z.string(), verdict: z.enum(VERDICTS), checked_at: z.string() })),
    creditToBeUsed: z.number().int(),
    listId: z.number().int(),
    listStatus: z.string(),
    /** Distinct entries of the job: the addresses and the entries that are not addresses. */
    total: z.number().int(),
    /** Distinct addresses (each charged once unless checked before). */
    addresses: z.number().int(),
    /** Distinct entries that are not addresses: reported invalid, free of charge. */
    invalid: z.number().int(),
    /** Rows of an uploaded file whose email cell is empty (not part of the job). */
    emptyRows: z.number().int(),
    /** The first VERIFY_SKIPPED_SHOWN of both, in line order. */
    skipped: z.array(ZVerifySkippedEntry),
  }),
});
export type TVerifyStoreResult = z.infer<typeof ZVerifyStoreResult>;

export const ZVerifyJob = z.object({
  id: z.number().int(),
  status: z.enum(['draft', 'queued', 'running', 'finished', 'failed']),
  total: z.number().int(),
  checked: z.number().int(),
  valid: z.number().int(),
  invalid: z.number().int(),
  unknown: z.number().int(),
  duplicates: z.number().int(),
  already_checked: z.number().int(),
  credits_charged: z.number().int(),
  credits_refunded: z.number().int(),
  /** What the user must know about the verdicts beyond the counts (a broken resolver, R48), or null. */
  notice: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type TVerifyJob = z.infer<typeof ZVerifyJob>;

export const ZVerifyItem = z.object({
  id: z.number().int(),
  email: z.string(),
  verdict: z.enum(VERDICTS).nullable(),
  reason: z.string().nullable(),
  flags: z.record(z.string(), z.boolean()),
  suggestion: z.string().nullable(),
  from_cache: z.boolean(),
  checked_at: z.string().nullable(),
});
export type TVerifyItem = z.infer<typeof ZVerifyItem>;

export const ZVerifyItemQuery = pageQuery({
  columns: ['email', 'verdict'],
  defaultColumn: 'email',
  defaultOrder: 'asc',
}).extend({
  verdict: z.enum(VERDICTS).optional(),
});

const ZMailingLists = z.object({
  mailingLists: z.array(z.coerce.number().int().positive()).min(1).max(50),
});

/**
 * Spec §7 verify (mailingLists, storageId): `storageId` marks the verifications as those a
 * send waits for (the verify-lists upsell: the send names the same id and goes out when they
 * end); `creditsToBeUsed`, the cost the user confirmed, must still be the cost.
 */
const ZVerifyLists = ZMailingLists.extend({
  storageId: ZStorageId.optional(),
  creditsToBeUsed: z.coerce.number().int().min(0).optional(),
});

export const verificationApi = {
  /** Spec §7: what verifying these lists' unverified members costs. */
  creditCheck: defineRoute({
    method: 'POST',
    path: '/email/verify-credit-check',
    body: ZMailingLists,
    response: z.object({
      status: z.boolean(),
      count: z.number().int(),
      controlled: z.number().int(),
      totalCount: z.number().int(),
    }),
  }),
  /** Spec §7 verify ("Verify Your List"): one job per list, its credits charged as it is queued. */
  verifyLists: defineRoute({
    method: 'POST',
    path: '/mailing-lists/verify',
    body: ZVerifyLists,
    response: ZStatusMessage.extend({
      checkListId: z.number().int(),
      total: z.number().int(),
      checkedLists: z.array(z.number().int()),
    }),
  }),
  textStore: defineRoute({
    method: 'POST',
    path: '/tools/verify-emails/text/store',
    body: z.object({ emails: z.string().max(2_000_000) }),
    response: ZVerifyStoreResult,
  }),
  /**
   * Spec §7: what verifying these addresses costs (one credit for each address not checked
   * before), read with the paste box's rules: `emails` as pasted text, or a list of lines.
   */
  bulkCreditCheck: defineRoute({
    method: 'POST',
    path: '/email/verify-bulk-emails-credit-check',
    body: z.object({
      emails: z.union([z.string().max(2_000_000), z.array(z.string().max(1000)).max(VERIFY_MAX_ADDRESSES * 2)]),
    }),
    response: z.object({
      status: z.boolean(),
      /** Credits the verification would use. */
      count: z.number().int(),
      /** Distinct addresses, those checked before, repeats, and entries that are not addresses. */
      total: z.number().int(),
      controlled: z.number().int(),
      duplicate: z.number().int(),
      invalid: z.number().int(),
    }),
  }),
  fileStore: defineRoute({
    method: 'POST',
    path: '/tools/verify-emails/file/store',
    /**
     * The parsed CSV's rows (spec: csvFile as JSON) and the column the user chose for the
     * email (spec §5 "select your email field"): addresses come from that column only. A
     * caller that names no column gets the import's auto-mapping (a header `email`, or the
     * only column), else 422.
     */
    body: z.object({
      csvFile: z.array(z.array(z.string().max(1000)).max(200)).max(VERIFY_MAX_ADDRESSES * 2),
      emailColumn: z.coerce.number().int().min(0).max(199).optional(),
      hasHeaders: z.coerce.boolean().optional(),
    }),
    response: ZVerifyStoreResult,
  }),
  lastCheck: defineRoute({
    method: 'POST',
    path: '/tools/verify-emails/last-check',
    body: z.object({
      listId: z.coerce.number().int().positive(),
      creditsToBeUsed: z.coerce.number().int().min(0),
      checkAgain: z.coerce.boolean().optional(),
    }),
    response: ZStatusMessage,
  }),
  jobs: defineRoute({
    method: 'GET',
    path: '/tools/verify-emails/jobs',
    query: pageQuery({ columns: ['created_at'], defaultColumn: 'created_at', defaultOrder: 'desc' }),
    response: pagedResponse(ZVerifyJob),
  }),
  job: defineRoute({
    method: 'GET',
    path: '/tools/verify-emails/jobs/:id',
    params: ZIdParams,
    response: z.object({ data: ZVerifyJob }),
  }),
  items: defineRoute({
    method: 'GET',
    path: '/tools/verify-emails/jobs/:id/results',
    params: ZIdParams,
    query: ZVerifyItemQuery,
    response: pagedResponse(ZVerifyItem),
  }),
  export: defineRoute({
    method: 'GET',
    path: '/tools/verify-emails/jobs/:id/export',
    params: ZIdParams,
    query: ZVerifyItemQuery,
    response: z.string(),
  }),
};
