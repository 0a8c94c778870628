import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type TMailgunRequest = { region: string; method: string; path: string; body: string; key: string | null };

/**
 * A contract fake of the Mailgun HTTP API parts Sendwell calls, for mailgun.js pointed at
 * it. Two base URLs, `${url}/us` and `${url}/eu`, stand for the two regions; a domain
 * lives in one region. As Mailgun documents: HTTP basic auth with user `api`, 401
 * `Forbidden` for a wrong key, 404 for a domain the key does not own,
 * `GET /v3|v4/domains/{domain}` (with its sending DNS records), `POST /v3/{domain}/messages` (multipart) answering
 * `{id, message: 'Queued. Thank you.'}`.
 */
export type TFakeList = {
  address: string;
  name: string;
  description: string;
  members: Map<string, { address: string; name: string; subscribed: boolean; vars: Record<string, unknown> }>;
};

/** Every value of every named field of a multipart/form-data body (repeated fields such as `to`). */
const formFieldLists = (body: string) => {
  const fields: Record<string, string[]> = {};
  for (const match of body.matchAll(/name="([^"]+)"\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*?)\r\n--/g)) {
    const values = fields[match[1]!] ?? [];
    values.push(match[2]!);
    fields[match[1]!] = values;
  }
  return fields;
};

export type TFakeMessage = { domain: string; to: string[]; fields: Record<string, string[]> };

/** The named fields of a multipart/form-data body, as mailgun.js sends them. */
const formFields = (body: string) => {
  const fields: Record<string, string> = {};
  for (const match of body.matchAll(/name="([^"]+)"\r\n(?:[^\r\n]+\r\n)*\r\n([\s\S]*?)\r\n--/g)) {
    fields[match[1]!] = match[2]!;
  }
  return fields;
};

/**
 * Mailing lists, as Mailgun documents them (lists belong to the key, not a domain):
 * `GET /v3/lists?limit&skip` → `{items, total_count}`, `POST /v3/lists`,
 * `DELETE /v3/lists/{address}`, `GET /v3/lists/{address}/members?limit&skip`,
 * `POST /v3/lists/{address}/members`, `POST /v3/lists/{address}/members.json` (bulk,
 * at most 1,000), `PUT` and `DELETE /v3/lists/{address}/members/{member}`.
 */
const serveLists = (
  lists: Map<string, TFakeList>,
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  send: (status: number, body: unknown) => void,
): boolean => {
  const reply = (status: number, answer: unknown) => {
    send(status, answer);
    return true;
  };
  const limit = Number(query.get('limit') ?? 100);
  const skip = Number(query.get('skip') ?? 0);
  const listOut = (list: TFakeList) => ({
    address: list.address,
    name: list.name,
    description: list.description,
    members_count: list.members.size,
    access_level: 'readonly',
    created_at: new Date().toUTCString(),
  });
  if (path === '/v3/lists' && method === 'GET') {
    const items = [...lists.values()].slice(skip, skip + limit).map(listOut);
    send(200, { items, total_count: lists.size });
    return true;
  }
  if (path === '/v3/lists' && method === 'POST') {
    const fields = formFields(body);
    const address = (fields.address ?? '').toLowerCase();
    if (!address.includes('@')) return reply(400, { message: "'address' parameter is not a valid address" });
    if (lists.has(address)) return reply(400, { message: `Duplicate object: ${address}` });
    const list = { address, name: fields.name ?? '', description: fields.description ?? '', members: new Map() };
    lists.set(address, list);
    send(200, { list: listOut(list), message: 'Mailing list has been created' });
    return true;
  }
  const listMatch = path.match(/^\/v3\/lists\/([^/]+)(\/members(?:\.json)?)?(?:\/([^/]+))?$/);
  if (!listMatch) return false;
  const address = decodeURIComponent(listMatch[1]!).toLowerCase();
  const list = lists.get(address);
  if (!list) return reply(404, { message: 'Mailing list not found' });
  const part = listMatch[2];
  const memberAddress = listMatch[3] ? decodeURIComponent(listMatch[3]).toLowerCase() : null;
  if (!part && method === 'PUT') {
    const fields = formFields(body);
    lists.delete(address);
    list.address = (fields.address ?? address).toLowerCase();
    if (fields.name !== undefined) list.name = fields.name;
    if (fields.description !== undefined) list.description = fields.description;
    lists.set(list.address, list);
    send(200, { list: listOut(list), message: 'Mailing list has been updated' });
    return true;
  }
  if (!part && method === 'DELETE') {
    lists.delete(address);
    send(200, { address, message: 'Mailing list has been removed' });
    return true;
  }
  if (part === '/members' && !memberAddress && method === 'GET') {
    const items = [...list.members.values()].slice(skip, skip + limit);
    send(200, { items, total_count: list.members.size });
    return true;
  }
  if (part === '/members' && !memberAddress && method === 'POST') {
    const fields = formFields(body);
    const member = {
      address: (fields.address ?? '').toLowerCase(),
      name: fields.name ?? '',
      subscribed: fields.subscribed !== 'no' && fields.subscribed !== 'false',
      vars: fields.vars ? JSON.parse(fields.vars) : {},
    };
    if (list.members.has(member.address) && fields.upsert !== 'yes') {
      return reply(400, { message: `Address already exists '${member.address}'` });
    }
    list.members.set(member.address, member);
    send(200, { member, message: 'Mailing list member has been created' });
    return true;
  }
  if (part === '/members.json' && method === 'POST') {
    const fields = formFields(body);
    const members = JSON.parse(fields.members ?? '[]') as { address: string; name?: string; subscribed?: boolean }[];
    if (members.length > 1000) return reply(400, { message: 'Too many members: at most 1000 per request' });
    for (const member of members) {
      const address = member.address.toLowerCase();
      if (list.members.has(address) && fields.upsert !== 'yes') continue;
      list.members.set(address, {
        address,
        name: member.name ?? '',
        subscribed: member.subscribed !== false,
        vars: {},
      });
    }
    send(200, {
      list: listOut(list),
      message: 'Mailing list has been updated',
      'task-id': randomBytes(8).toString('hex'),
    });
    return true;
  }
  if (part === '/members' && memberAddress) {
    const member = list.members.get(memberAddress);
    if (!member) return reply(404, { message: 'Member not found' });
    if (method === 'DELETE') {
      list.members.delete(memberAddress);
      send(200, { member: { address: memberAddress }, message: 'Mailing list member has been deleted' });
      return true;
    }
    if (method === 'PUT') {
      const fields = formFields(body);
      if (fields.name !== undefined) member.name = fields.name;
      if (fields.subscribed !== undefined)
        member.subscribed = fields.subscribed === 'yes' || fields.subscribed === 'true';
      send(200, { member, message: 'Mailing list member has been updated' });
      return true;
    }
  }
  return false;
};

export const startMailgunFake = async ({
  key,
  domains,
  keepMessages = true,
}: {
  key: string;
  /** `dkimSelector`: the selector of the domain's DKIM record (`mx` unless given), as Mailgun picks one per domain. */
  domains: { name: string; region: 'us' | 'eu'; dkimSelector?: string }[];
  /** Benchmarks count recipients without keeping every message body. */
  keepMessages?: boolean;
}) => {
  const accepted = { calls: 0, recipients: 0 };
  const requests: TMailgunRequest[] = [];
  const lists = new Map<string, TFakeList>();
  const messages: TFakeMessage[] = [];
  /** Mailgun's suppression lists: `domain/type/address` (type bounces, complaints or unsubscribes). */
  const suppressions = new Set<string>();
  /** Domains whose messages calls answer this HTTP status instead of accepting. */
  const failing = new Map<string, number>();
  /** Awaited before a messages call is accepted: a test looks at what was committed meanwhile. */
  let beforeAccept: ((domain: string) => Promise<void>) | null = null;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const match = (request.url ?? '').match(/^\/(us|eu)(\/[^?]*)/);
      const region = match?.[1] ?? '';
      const path = match?.[2] ?? request.url ?? '';
      const auth = request.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(request.headers.authorization.slice(6), 'base64').toString()
        : null;
      const given = auth?.startsWith('api:') ? auth.slice(4) : null;
      requests.push({
        region,
        method: request.method ?? '',
        path,
        body: keepMessages ? Buffer.concat(chunks).toString() : '',
        key: given,
      });
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (given !== key) {
        response.writeHead(401, { 'content-type': 'text/plain' });
        response.end('Forbidden');
        return;
      }
      const owns = (name: string | undefined) =>
        domains.some((domain) => domain.name === name && domain.region === region);
      // GET /v3/domains/{domain} (and /v4/, which mailgun.js calls): the domain with the DNS
      // records Mailgun asks for, as documented: `sending_dns_records` of {record_type, name,
      // value, valid, cached, is_active}: the SPF TXT at the domain, the DKIM TXT at
      // `<selector>._domainkey.<domain>`, the tracking CNAME `email.<domain>`.
      const domainMatch = path.match(/^\/v[34]\/domains\/([^/]+)$/);
      if (request.method === 'GET' && domainMatch) {
        const name = decodeURIComponent(domainMatch[1]!);
        if (!owns(name)) return send(404, { message: 'Domain not found' });
        const selector = domains.find((domain) => domain.name === name)?.dkimSelector ?? 'mx';
        const record = (record_type: string, recordName: string, value: string) => ({
          record_type,
          name: recordName,
          value,
          valid: 'valid',
          cached: [],
          is_active: true,
        });
        return send(200, {
          domain: {
            name,
            state: 'active',
            type: 'custom',
            created_at: new Date().toUTCString(),
            require_tls: false,
            skip_verification: false,
            spam_action: 'disabled',
            wildcard: false,
            smtp_login: `postmaster@${name}`,
            web_prefix: 'email',
            web_scheme: 'https',
          },
          receiving_dns_records: [
            { record_type: 'MX', name, value: 'mxa.mailgun.org', priority: '10', valid: 'valid', cached: [] },
          ],
          sending_dns_records: [
            record('TXT', name, 'v=spf1 include:mailgun.org ~all'),
            record('TXT', `${selector}._domainkey.${name}`, 'k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC'),
            record('CNAME', `email.${name}`, 'mailgun.org'),
          ],
        });
      }
      const query = new URL(request.url ?? '/', 'http://fake').searchParams;
      if (serveLists(lists, request.method ?? '', path, query, Buffer.concat(chunks).toString(), send)) return;
      const suppressionMatch = path.match(/^\/v3\/([^/]+)\/(bounces|complaints|unsubscribes)\/([^/]+)$/);
      if (request.method === 'DELETE' && suppressionMatch) {
        const [, domainName, type, address] = suppressionMatch.map((part) => decodeURIComponent(part ?? ''));
        if (!owns(domainName)) return send(404, { message: 'Domain not found' });
        const key = `${domainName}/${type}/${address!.toLowerCase()}`;
        if (!suppressions.delete(key)) return send(404, { message: 'Address not found in suppressions table' });
        return send(200, { message: 'Bounced address has been removed', value: '', address });
      }
      const messageMatch = path.match(/^\/v3\/([^/]+)\/messages$/);
      if (request.method === 'POST' && messageMatch) {
        const name = decodeURIComponent(messageMatch[1]!);
        if (!owns(name)) return send(404, { message: 'Domain not found' });
        const failure = failing.get(name);
        if (failure) return send(failure, { message: failure >= 500 ? 'Internal error' : 'Bad request' });
        const fields = formFieldLists(Buffer.concat(chunks).toString());
        const to = (fields.to ?? []).flatMap((value) => value.split(',').map((item) => item.trim()));
        if (to.length > 1000) return send(400, { message: 'Too many recipients: at most 1000 per message' });
        const accept = () => {
          accepted.calls += 1;
          accepted.recipients += to.length;
          if (keepMessages) messages.push({ domain: name, to, fields });
          send(200, { id: `<${randomBytes(8).toString('hex')}@${name}>`, message: 'Queued. Thank you.' });
        };
        if (beforeAccept) {
          beforeAccept(name).then(accept, (error: unknown) => send(500, { message: String(error) }));
          return;
        }
        return accept();
      }
      return send(404, { message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    urls: { us: `${url}/us`, eu: `${url}/eu` },
    requests,
    /** Mailing lists by address: tests seed and inspect them. */
    lists,
    /** Accepted messages calls, with their recipients and fields. */
    messages,
    suppressions,
    accepted,
    failing,
    /** Runs `hook` before each messages call is accepted (null: accept at once). */
    beforeAccepting: (hook: ((domain: string) => Promise<void>) | null) => {
      beforeAccept = hook;
    },
    addList: (address: string, name: string, members: { address: string; name?: string; subscribed?: boolean }[]) => {
      lists.set(address.toLowerCase(), {
        address: address.toLowerCase(),
        name,
        description: '',
        members: new Map(
          members.map((member) => [
            member.address.toLowerCase(),
            {
              address: member.address.toLowerCase(),
              name: member.name ?? '',
              subscribed: member.subscribed !== false,
              vars: {},
            },
          ]),
        ),
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
