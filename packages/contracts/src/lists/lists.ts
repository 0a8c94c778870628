import { z } from 'zod';
import { pagedResponse, pageQuery } from '../paging/paging';
import { canonicalEmail, EMAIL_PROBLEMS } from './email';

/** The spec's list and member messages (sending-lists-verification §5, §8). */
export const LIST_MESSAGES = {
  aliasRequired: 'Alias field is required!',
  nameRequired: 'Name field is required!',
  formInvalid: 'Please fill the form correctly!',
  accountRequired: 'Please choose a sending account.',
  listSaved: 'Your mailing list has been saved.',
  listCreated: 'Your mailing list has been created.',
  listDeleted: 'Your mailing list has been deleted.',
  listExists: 'A mailing list with this address already exists on this account.',
  memberDeleted: 'Your member successfully deleted on list!',
  membersDeleted: 'The selected members have been deleted from the list.',
  memberSaved: 'The member has been saved.',
  memberAdded: 'The member has been added to the list.',
  memberExists: 'This address is already on the list.',
  memberUnconfirmed:
    'This member has not confirmed the subscription yet. Only they can, with the link in the confirmation email.',
  emailInvalid: 'Please enter a valid email address.',
  noGeneric: 'Excellent! There are no generic emails in your mailing list.',
  genericWarning: 'Sending to generic addresses (info@, sales@…) may harm your deliverability.',
  allGeneric:
    'Every address in this file is generic (info@, sales@…). They will not be placed on the list, and verification is not offered.',
  csvFormat: 'File must be a CSV format.',
  csvTooLarge: 'This file is larger than the import limit.',
  selectEmail: 'Please select email field first!',
  uploadFirst: 'Please upload the CSV file first!',
  headerRow:
    "The first row's email is not a valid address. If your file starts with a header row, tick 'My file has headers' or remove that row.",
  headerLooksLikeAddress:
    "The first row holds an address, so it is not a header row: untick 'My file has headers' (and correct the address if it is mistyped).",
  importQueued: 'Your import has started. You can leave this page; it carries on in the background.',
  syncNotMailgun: 'Only Mailgun accounts can sync their mailing lists from the provider.',
} as const;

/** Generic Email Control's answer: how many generic members were unsubscribed (they stay on the list). */
export const genericUnsubscribedMessage = (count: number) =>
  `${count} generic ${count === 1 ? 'address was' : 'addresses were'} unsubscribed: ${count === 1 ? 'it stays' : 'they stay'} on the list and ${count === 1 ? 'gets' : 'get'} no more email from it.`;

/** Columns of the mailing lists table the API sorts by. */
export const LIST_SORT_COLUMNS = ['created_at', 'address', 'name', 'members_count', 'verified_count'] as const;
export const ZListQuery = pageQuery({
  columns: LIST_SORT_COLUMNS,
  defaultColumn: 'created_at',
  defaultOrder: 'desc',
}).extend({ account_id: z.coerce.number().int().positive().optional() });
export type TListQuery = z.input<typeof ZListQuery>;

/** Columns of the member table; the spec's default is email ascending. */
export const MEMBER_SORT_COLUMNS = ['email', 'fullname', 'subscribe', 'verified', 'created_at'] as const;
export const ZMemberQuery = pageQuery({ columns: MEMBER_SORT_COLUMNS, defaultColumn: 'email', defaultOrder: 'asc' });
export type TMemberQuery = z.input<typeof ZMemberQuery>;

export const VERIFY_STATUSES = ['unverified', 'processing', 'verified'] as const;

/** A mailing list as the tables and modals see it (spec §3, plus the account it belongs to). */
export const ZMailingList = z.object({
  id: z.number().int(),
  /** The provider's list id: the Mailgun list address for synced lists, else the same as `address`. */
  list_id: z.string(),
  account_id: z.number().int(),
  account_name: z.string(),
  provider: z.enum(['mailgun', 'smtp', 'google']),
  address: z.string(),
  alias: z.string(),
  domain: z.string(),
  name: z.string(),
  description: z.string(),
  /** The spec's `mailing_list`: the list's address, as other screens print it. */
  mailing_list: z.string(),
  members_count: z.number().int(),
  subscribed: z.number().int(),
  verified_count: z.number().int(),
  unverified_subscribers_count: z.number().int(),
  verified: z.boolean(),
  verify_status: z.enum(VERIFY_STATUSES),
  verified_at: z.string().nullable(),
  /** Signups through the list's form wait for the confirmation link. */
  double_opt_in: z.boolean(),
  created_at: z.string(),
});
export type TMailingList = z.infer<typeof ZMailingList>;
export const ZListPage = pagedResponse(ZMailingList);

const alias = z
  .string({ message: LIST_MESSAGES.aliasRequired })
  .trim()
  .min(1, { message: LIST_MESSAGES.aliasRequired })
  .max(64)
  .regex(/^[A-Za-z0-9._+-]*$/, { message: 'The alias may hold letters, digits and . _ + - only.' });
const listName = z
  .string({ message: LIST_MESSAGES.nameRequired })
  .trim()
  .min(1, { message: LIST_MESSAGES.nameRequired })
  .max(200);
const description = z.string().trim().max(1000).optional().default('');

/** `POST /api/mailing-lists`: a new list on one of the user's accounts. */
export const ZCreateListRequest = z.object({
  accountId: z.coerce.number({ message: LIST_MESSAGES.accountRequired }).int().positive(),
  alias,
  name: listName,
  description,
});
export type TCreateListRequest = z.input<typeof ZCreateListRequest>;

/** `POST /api/mailing-lists/update/list/{id}` (spec: accountId, alias, name, description, domain; domain is read-only). */
export const ZUpdateListRequest = z.object({
  accountId: z.coerce.number().int().positive().optional(),
  alias,
  name: listName,
  description,
  domain: z.string().optional(),
});
export type TUpdateListRequest = z.input<typeof ZUpdateListRequest>;

/** `POST /api/mailing-lists/check-delete` (spec "check", path not shown) and `POST /api/mailing-lists/delete`. */
export const ZDeleteListRequest = z.object({
  listId: z.coerce.number().int().positive(),
  account: z.coerce.number().int().positive().optional(),
  address: z.string().optional(),
  deleteMailgun: z.coerce.boolean().optional().default(false),
});
export type TDeleteListRequest = z.input<typeof ZDeleteListRequest>;

/** What still uses a list: the delete modal names them. */
export const ZListUsage = z.object({
  type: z.enum(['drip', 'scheduled']),
  id: z.number().int(),
  name: z.string(),
});
export const ZDeleteCheckResponse = z.object({ status: z.literal(true), campaigns: z.array(ZListUsage) });
export type TDeleteCheckResponse = z.infer<typeof ZDeleteCheckResponse>;

export const ZImportFromProviderRequest = z.object({ accountId: z.coerce.number().int().positive() });

/** A member as the member table shows it (spec §3; `subscribe` is 0 or 1). */
export const ZMember = z.object({
  id: z.number().int(),
  email: z.string(),
  fullname: z.string(),
  subscribe: z.union([z.literal(0), z.literal(1)]),
  verified: z.boolean(),
  verified_at: z.string().nullable(),
  list_id: z.number().int(),
  account_id: z.number().int(),
  fields: z.record(z.string(), z.string()),
  /** Signed up to a double opt-in list and not confirmed yet (then `subscribe` is 0). */
  unconfirmed: z.boolean(),
  created_at: z.string(),
});
export type TMember = z.infer<typeof ZMember>;
export const ZMemberPage = pagedResponse(ZMember);

const memberName = z.string().trim().max(200).optional().default('');
const subscribe = z.coerce
  .number()
  .int()
  .refine((value) => value === 0 || value === 1, { message: 'Subscribed must be 0 or 1.' })
  .optional()
  .default(1);

/** `POST /api/mailing-lists/add-member` (path not shown in the spec). */
export const ZAddMemberRequest = z.object({
  listId: z.coerce.number().int().positive(),
  // The list's address rules (email.ts), stored in their canonical form like an import's.
  email: z
    .string()
    .max(320)
    .transform((value, context) => {
      const email = canonicalEmail(value);
      if (email === null) context.addIssue({ code: 'custom', message: LIST_MESSAGES.emailInvalid });
      return email ?? value;
    }),
  fullname: memberName,
  subscribe,
});
export type TAddMemberRequest = z.input<typeof ZAddMemberRequest>;

/** `POST /api/mailing-lists/update/member/{id}`: the email is read-only and ignored. */
export const ZUpdateMemberRequest = z.object({
  account_id: z.coerce.number().int().positive().optional(),
  email: z.string().optional(),
  fullname: memberName,
  subscribe,
});
export type TUpdateMemberRequest = z.input<typeof ZUpdateMemberRequest>;

/**
 * `POST /api/mailing-lists/delete-member`. deleteMailgun (default true): also remove the
 * address from the Mailgun list. Read as a form would send it: `false`, 'false', '0' and 0
 * are false (a plain coercion would read the string 'false' as true).
 */
export const ZDeleteMemberRequest = z.object({
  listId: z.coerce.number().int().positive(),
  id: z.coerce.number().int().positive(),
  email: z.string().optional(),
  deleteMailgun: z
    .union([z.boolean(), z.enum(['true', 'false', '1', '0']), z.literal(1), z.literal(0)])
    .optional()
    .transform((value) => value === undefined || value === true || value === 'true' || value === '1' || value === 1),
});

/** `POST /api/mailing-lists/bulk-delete-member`: memberId is a JSON array (or an array). */
export const ZBulkDeleteMembersRequest = z.object({
  memberId: z.preprocess(
    (value) => (typeof value === 'string' ? JSON.parse(value) : value),
    z.array(z.coerce.number().int().positive()).min(1, { message: 'Select at least one member.' }).max(1000),
  ),
  accountId: z.coerce.number().int().positive().optional(),
  listId: z.coerce.number().int().positive(),
});
export type TBulkDeleteMembersRequest = z.input<typeof ZBulkDeleteMembersRequest>;

/** Generic addresses shown in the Generic Email Control modal before '...and N more'. */
export const GENERIC_MODAL_PREVIEW = 15;
/** Generic addresses shown in the CSV import warning before '...and N more'. */
export const GENERIC_IMPORT_PREVIEW = 3;

/** `GET /api/mailing-lists/get-emails-for-generic-control/{id}`. */
export const ZGenericControlResponse = z.object({
  status: z.literal(true),
  emails: z.array(z.string()),
  total: z.number().int(),
  message: z.string(),
});
export type TGenericControlResponse = z.infer<typeof ZGenericControlResponse>;

/**
 * `POST /api/mailing-lists/clear-generic-emails`: the generic members are unsubscribed (they
 * stay on the list); without `emails`, every generic address of the list.
 */
export const ZClearGenericRequest = z.object({
  listId: z.coerce.number().int().positive(),
  emails: z.array(z.string().max(320)).max(100_000).optional(),
});

/** `GET /api/ajax/get-generic-emails`, with the largest file a list import takes (so the modal can refuse it before uploading). */
export const ZGenericEmailsResponse = z.object({
  status: z.literal(true),
  emails: z.array(z.string()),
  importMaxBytes: z.number().int(),
});
export type TGenericEmailsResponse = z.infer<typeof ZGenericEmailsResponse>;

/** `POST /api/mailing-lists/ajax/post-csv`: rows already parsed in the browser (small files). */
export const POST_CSV_MAX_ROWS = 20_000;
export const ZPostCsvRequest = z.object({
  data: z
    .array(
      z.object({
        email: z.string().max(320),
        name: z.string().max(200).optional().default(''),
        fields: z.record(z.string().max(64), z.string().max(1000)).optional(),
      }),
    )
    .min(1, { message: LIST_MESSAGES.uploadFirst })
    .max(POST_CSV_MAX_ROWS),
  account: z.coerce.number().int().positive(),
  address: z.string().min(1),
  verify: z.coerce.boolean().optional().default(false),
  removeGeneric: z.coerce.boolean().optional().default(false),
});
export type TPostCsvRequest = z.input<typeof ZPostCsvRequest>;
export const ZImportCounts = z.object({
  added: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
  duplicates: z.number().int(),
});
export type TImportCounts = z.infer<typeof ZImportCounts>;
export const ZPostCsvResponse = z.object({ status: z.boolean(), message: z.string(), counts: ZImportCounts });

/**
 * How the server reads an uploaded file: which column holds what. Columns are 0-based
 * positions in each row. `fields` become the member's custom fields (empty cells skipped).
 */
export const ZImportMapping = z
  .object({
    hasHeaders: z.boolean(),
    emailColumn: z.number({ message: LIST_MESSAGES.selectEmail }).int().min(0).max(999),
    nameColumn: z.number().int().min(0).max(999).nullable().default(null),
    /**
     * The columns the Name is joined from, in order ('First Name' + 'Last Name'); when given,
     * it replaces `nameColumn`, which stays for callers that map one column.
     */
    nameColumns: z.array(z.number().int().min(0).max(999)).max(5).optional(),
    fields: z
      .array(
        z.object({
          column: z.number().int().min(0).max(999),
          key: z
            .string()
            .trim()
            .min(1)
            .max(64)
            .regex(/^[A-Za-z0-9_]+$/, { message: 'Custom field names may hold letters, digits and _ only.' }),
        }),
      )
      .max(50)
      .default([]),
    removeGeneric: z.boolean().default(false),
    /** Spec §4: verify the list's unverified members once the import is in (one credit each, charged then). */
    verify: z.boolean().default(false),
  })
  .superRefine((mapping, context) => {
    const used = [mapping.emailColumn, ...importNameColumns(mapping), ...mapping.fields.map((field) => field.column)];
    if (new Set(used).size !== used.length) {
      context.addIssue({ code: 'custom', path: ['fields'], message: 'Each column can be mapped once.' });
    }
    const keys = mapping.fields.map((field) => field.key.toLowerCase());
    if (new Set(keys).size !== keys.length) {
      context.addIssue({ code: 'custom', path: ['fields'], message: 'Each custom field name can be used once.' });
    }
  });
export type TImportMapping = z.input<typeof ZImportMapping>;

/** The columns an import joins the Name from: `nameColumns`, else the one `nameColumn`, else none. */
export const importNameColumns = (mapping: { nameColumn?: number | null; nameColumns?: number[] | undefined }) =>
  mapping.nameColumns ?? (mapping.nameColumn === null || mapping.nameColumn === undefined ? [] : [mapping.nameColumn]);

export const IMPORT_STATUSES = ['queued', 'running', 'finished', 'failed'] as const;
export type TImportStatus = (typeof IMPORT_STATUSES)[number];
export const IMPORT_STAGES = ['reading', 'saving', 'done'] as const;

/** Why a row was not imported; the skipped-rows report gives one per row. */
export const SKIP_REASONS = {
  invalidEmail: EMAIL_PROBLEMS.invalid,
  missingEmail: EMAIL_PROBLEMS.missing,
  mailto: EMAIL_PROBLEMS.mailto,
  nonAsciiLocalPart: EMAIL_PROBLEMS.nonAsciiLocalPart,
  generic: 'generic address removed',
} as const;

/** A list import running in the background (large files), with its progress. */
export const ZListImport = z.object({
  id: z.number().int(),
  list_id: z.number().int(),
  list_address: z.string(),
  file_name: z.string(),
  status: z.enum(IMPORT_STATUSES),
  stage: z.enum(IMPORT_STAGES),
  bytes_total: z.number().int(),
  bytes_read: z.number().int(),
  rows_read: z.number().int(),
  added: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
  duplicates: z.number().int(),
  /** Rows skipped, by reason (keys are SKIP_REASONS values). */
  skipped_reasons: z.record(z.string(), z.number().int()),
  error: z.string().nullable(),
  has_report: z.boolean(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type TListImport = z.infer<typeof ZListImport>;
export const ZListImportResponse = z.object({ status: z.literal(true), message: z.string(), data: ZListImport });

// --- the integrators' member calls (issue 48 §2), by address rather than by member id ---

/** The address rules of the list (email.ts), in their canonical form, like an import's. */
const memberEmail = z
  .string({ message: LIST_MESSAGES.emailInvalid })
  .max(320)
  .transform((value, context) => {
    const email = canonicalEmail(value);
    if (email === null) context.addIssue({ code: 'custom', message: LIST_MESSAGES.emailInvalid });
    return email ?? value;
  });
const memberFields = z
  .record(z.string().max(64), z.string().max(1000))
  .refine((fields) => Object.keys(fields).length <= 50, {
    message: 'A member may have at most 50 custom fields.',
  });

/**
 * `PUT /api/mailing-lists/{listId}/members`: adds the address, or updates the member already
 * there (any case). A given name replaces the stored one, fields are merged; `subscribed`
 * false keeps an added address unsubscribed, true subscribes it again.
 */
export const ZUpsertMemberRequest = z.object({
  email: memberEmail,
  fullname: z.string().trim().max(200).optional(),
  fields: memberFields.optional(),
  subscribed: z.boolean().optional(),
});
export type TUpsertMemberRequest = z.input<typeof ZUpsertMemberRequest>;
export const ZUpsertMemberResponse = z.object({
  status: z.literal(true),
  message: z.string(),
  /** Whether the address was new to the list. */
  created: z.boolean(),
  /** A double opt-in list: the address was asked to confirm (it is `unconfirmed` until it does). */
  confirmation_sent: z.boolean(),
  data: ZMember,
});

/** `POST /api/mailing-lists/{listId}/members/unsubscribe` and `…/remove`: one address. */
export const ZMemberByEmailRequest = z.object({ email: memberEmail });

/** The most members one bulk call takes. */
export const BULK_MEMBERS_MAX = 10_000;
/**
 * `POST /api/mailing-lists/{listId}/members/bulk`: up to 10,000 members in one call, each
 * read as the single call reads it; an invalid row is reported and the others are saved.
 * Rows are read loosely here (a bad address is a row's result, not a 422 for the call).
 */
export const ZBulkMembersRequest = z.object({
  members: z
    .array(
      z.object({
        email: z.string().max(320),
        fullname: z.string().max(200).optional(),
        fields: z.record(z.string(), z.string()).optional(),
        subscribed: z.boolean().optional(),
      }),
    )
    .min(1, { message: 'Give at least one member.' })
    .max(BULK_MEMBERS_MAX, { message: `At most ${BULK_MEMBERS_MAX.toLocaleString('en-US')} members per call.` }),
});
export type TBulkMembersRequest = z.input<typeof ZBulkMembersRequest>;
export const BULK_ROW_RESULTS = ['added', 'updated', 'invalid', 'duplicate'] as const;
export const ZBulkMembersResponse = z.object({
  status: z.boolean(),
  message: z.string(),
  counts: z.object({
    added: z.number().int(),
    updated: z.number().int(),
    invalid: z.number().int(),
    duplicate: z.number().int(),
    /** Addresses asked to confirm (a double opt-in list): `unconfirmed` until they do. */
    confirmations: z.number().int(),
  }),
  /** One per row given, in order: `duplicate` when an earlier row of the call had the address. */
  results: z.array(
    z.object({
      email: z.string(),
      result: z.enum(BULK_ROW_RESULTS),
      message: z.string().optional(),
    }),
  ),
});
export type TBulkMembersResponse = z.infer<typeof ZBulkMembersResponse>;
