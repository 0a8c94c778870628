import { TransportError } from './mail';
import { mailgunClient, pathSegment, type TMailgunClient, type TMailgunSettings } from './mailgun';

export type TProviderList = { address: string; name: string; description: string; membersCount: number };
export type TProviderMember = { address: string; name: string; subscribed: boolean; vars: Record<string, unknown> };

/** Mailgun's page size for lists and members (its maximum is 100 on the skip-based calls). */
const PAGE = 100;
/** Mailgun's bulk member call takes at most 1,000 members. */
const BULK_MAX = 1000;

const failure = (error: unknown, what: string) => {
  const status = (error as { status?: number }).status;
  if (status === 401 || status === 403) return new TransportError('Mailgun refused this API key.', 'AUTH');
  if (status === 404) return new TransportError(`Mailgun has no ${what}.`, 'CONFIG');
  if (status && status >= 400 && status < 500) {
    return new TransportError(`Mailgun refused the request: ${(error as Error).message}`, 'REJECTED');
  }
  return new TransportError('Mailgun could not be reached. Please try again in a moment.', 'CONNECTION');
};

const isNotFound = (error: unknown) => (error as { status?: number }).status === 404;

/**
 * Mailgun's mailing lists API (lists are per API key, addressed by their email address)
 * through mailgun.js: reading lists and members for Sync From Provider, and keeping a
 * Mailgun list in step with the member changes made in Sendwell.
 */
export const createMailgunLists = (
  settings: Pick<TMailgunSettings, 'apiKey' | 'region'>,
  urls: { us: string; eu: string },
  { timeoutMs = 20_000 }: { timeoutMs?: number } = {},
) => {
  const clientOf = mailgunClient(settings, urls, timeoutMs);

  const call = async <T>(what: string, run: (client: TMailgunClient) => Promise<T>) => {
    try {
      return await run(await clientOf());
    } catch (error) {
      throw failure(error, what);
    }
  };

  return {
    /**
     * Takes an address off a domain's suppression list (bounces, complaints or unsubscribes);
     * one Mailgun no longer has is already done.
     */
    async removeSuppression(domain: string, type: 'bounces' | 'complaints' | 'unsubscribes', address: string) {
      try {
        await (await clientOf()).suppressions.destroy(pathSegment(domain), type, address);
      } catch (error) {
        if (!isNotFound(error)) throw failure(error, 'such suppression');
      }
    },
    /** Every list the key owns, page by page. */
    async *lists(): AsyncGenerator<TProviderList> {
      for (let skip = 0; ; skip += PAGE) {
        const page = await call('mailing lists', (client) => client.lists.listByAddress({ limit: PAGE, skip }));
        for (const item of page.items) {
          yield {
            address: item.address,
            name: item.name ?? '',
            description: item.description ?? '',
            membersCount: item.members_count ?? 0,
          };
        }
        if (page.items.length < PAGE) return;
      }
    },

    /** Every member of one list, a page at a time. */
    async *members(listAddress: string): AsyncGenerator<TProviderMember[]> {
      for (let skip = 0; ; skip += PAGE) {
        const page = await call(`mailing list ${listAddress}`, (client) =>
          client.lists.members.listMembersByAddress(pathSegment(listAddress), { limit: PAGE, skip }),
        );
        const items = page.items.map((member) => ({
          address: member.address,
          name: member.name ?? '',
          subscribed: member.subscribed !== false,
          vars: (member.vars ?? {}) as Record<string, unknown>,
        }));
        if (items.length > 0) yield items;
        if (items.length < PAGE) return;
      }
    },

    createList: (list: { address: string; name: string; description: string }) =>
      call('such list', (client) => client.lists.create(list)),

    /** Renames or redescribes a list (its address can change too). */
    updateList: (address: string, list: { address: string; name: string; description: string }) =>
      call(`mailing list ${address}`, (client) => client.lists.update(pathSegment(address), list)),

    /** Deletes a list at Mailgun; one that is already gone is not an error. */
    deleteList: async (address: string) => {
      try {
        await (await clientOf()).lists.destroy(pathSegment(address));
      } catch (error) {
        if (!isNotFound(error)) throw failure(error, `mailing list ${address}`);
      }
    },

    /** Adds or updates members, 1,000 per call (Mailgun's bulk limit). */
    upsertMembers: async (listAddress: string, members: TProviderMember[]) => {
      for (let start = 0; start < members.length; start += BULK_MAX) {
        const slice = members.slice(start, start + BULK_MAX);
        await call(`mailing list ${listAddress}`, (client) =>
          client.lists.members.createMembers(pathSegment(listAddress), {
            members: slice as Parameters<TMailgunClient['lists']['members']['createMembers']>[1]['members'],
            upsert: 'yes',
          }),
        );
      }
    },

    updateMember: (listAddress: string, member: TProviderMember) =>
      call(`member ${member.address}`, (client) =>
        client.lists.members.updateMember(pathSegment(listAddress), pathSegment(member.address), {
          address: member.address,
          name: member.name,
          subscribed: member.subscribed ? 'yes' : 'no',
        } as Parameters<TMailgunClient['lists']['members']['updateMember']>[2]),
      ),

    /** Removes a member at Mailgun; one that is already gone is not an error. */
    deleteMember: async (listAddress: string, memberAddress: string) => {
      try {
        await (await clientOf()).lists.members.destroyMember(pathSegment(listAddress), pathSegment(memberAddress));
      } catch (error) {
        if (!isNotFound(error)) throw failure(error, `member ${memberAddress}`);
      }
    },
  };
};

export type TMailgunLists = ReturnType<typeof createMailgunLists>;
