import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A contract fake of the parts of Stripe's HTTP API Sendwell calls, for the real `stripe`
 * SDK pointed at it (host/port/protocol). It behaves as Stripe documents: form-encoded
 * bodies with bracket keys, `Authorization: Bearer sk_…`, errors as `{error: {type, code,
 * message, param}}`, idempotency keys replaying the first answer (and refusing reuse with
 * other parameters), and the documented test tokens:
 *
 * - `tok_visa`, `tok_mastercard`: cards that pay;
 * - `tok_chargeDeclined`: refused when attached to a customer (card_declined);
 * - `tok_chargeCustomerFail`: attaches, then every charge is declined.
 *
 * Every request is recorded, so tests can check what Sendwell sent.
 */

type TParams = Record<string, unknown>;
export type TStripeRequest = { method: string; path: string; params: TParams; idempotencyKey: string | undefined };

type TCard = { id: string; fails: boolean };
type TCustomer = { id: string; email: string; name: string; card: TCard | null; metadata: TParams; deleted?: boolean };
type TSubscription = {
  id: string;
  customer: string;
  status: string;
  itemId: string;
  price: string;
  periodEnd: number;
  latestInvoice: string;
  metadata: TParams;
};

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; code?: string; message: string; param?: string; decline_code?: string },
  ) {
    super(body.message);
  }
}

const declined = () =>
  new StripeError(402, {
    type: 'card_error',
    code: 'card_declined',
    decline_code: 'generic_decline',
    message: 'Your card was declined.',
  });

const missing = (kind: string, value: unknown, param?: string) =>
  new StripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${String(value)}'`,
    ...(param ? { param } : {}),
  });

/** `items[0][price]=x&metadata[a]=b` → `{items: [{price: 'x'}], metadata: {a: 'b'}}`, as Stripe reads it. */
export const parseStripeForm = (body: string): TParams => {
  const root: TParams = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    path.forEach((part, index) => {
      const isLast = index === path.length - 1;
      const nextIsIndex = /^\d*$/.test(path[index + 1] ?? 'x');
      const slot = Array.isArray(node) ? (part === '' ? String(node.length) : part) : part;
      if (isLast) {
        node[slot] = value;
        return;
      }
      node[slot] ??= nextIsIndex ? [] : {};
      node = node[slot] as Record<string, unknown>;
    });
  }
  return root;
};

export const startStripeFake = async ({ prices }: { prices: string[] }) => {
  const customers = new Map<string, TCustomer>();
  const subscriptions = new Map<string, TSubscription>();
  const paymentIntents = new Map<string, TParams>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const requests: TStripeRequest[] = [];
  const knownPrices = new Set(prices);

  const customerJson = (customer: TCustomer) =>
    customer.deleted
      ? { id: customer.id, object: 'customer', deleted: true }
      : {
          id: customer.id,
          object: 'customer',
          email: customer.email,
          name: customer.name,
          default_source: customer.card?.id ?? null,
          metadata: customer.metadata,
        };

  const invoiceJson = (subscription: TSubscription) => ({
    id: subscription.latestInvoice,
    object: 'invoice',
    customer: subscription.customer,
    status: 'paid',
    billing_reason: 'subscription_create',
  });

  const subscriptionJson = (subscription: TSubscription, expand: unknown) => ({
    id: subscription.id,
    object: 'subscription',
    customer: subscription.customer,
    status: subscription.status,
    metadata: subscription.metadata,
    items: {
      object: 'list',
      data: [
        {
          id: subscription.itemId,
          object: 'subscription_item',
          price: { id: subscription.price, object: 'price' },
          current_period_end: subscription.periodEnd,
        },
      ],
    },
    latest_invoice:
      Array.isArray(expand) && expand.includes('latest_invoice')
        ? invoiceJson(subscription)
        : subscription.latestInvoice,
  });

  const cardFromToken = (token: unknown): TCard => {
    if (token === 'tok_chargeDeclined') throw declined();
    if (token === 'tok_visa' || token === 'tok_mastercard') return { id: id('card'), fails: false };
    if (token === 'tok_chargeCustomerFail') return { id: id('card'), fails: true };
    throw missing('token', token, 'source');
  };

  const findCustomer = (customerId: unknown) => {
    const customer = customers.get(String(customerId));
    if (!customer || customer.deleted) throw missing('customer', customerId, 'customer');
    return customer;
  };

  const findSubscription = (subscriptionId: string) => {
    const subscription = subscriptions.get(subscriptionId);
    if (!subscription) throw missing('subscription', subscriptionId);
    return subscription;
  };

  const priceOf = (params: TParams) => {
    const price = (params.items as { price?: string }[] | undefined)?.[0]?.price;
    if (!price || !knownPrices.has(price)) throw missing('price', price, 'items[0][price]');
    return price;
  };

  /** Charges the customer's card for a new invoice, as `payment_behavior=error_if_incomplete` does. */
  const chargeCard = (customer: TCustomer) => {
    if (!customer.card) {
      throw new StripeError(400, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: 'This customer has no attached payment source or default payment method.',
      });
    }
    if (customer.card.fails) throw declined();
  };

  const route = (method: string, path: string, params: TParams): unknown => {
    const customerPath = path.match(/^\/v1\/customers\/([^/]+)$/);
    const subscriptionPath = path.match(/^\/v1\/subscriptions\/([^/]+)$/);
    if (method === 'POST' && path === '/v1/customers') {
      const card = params.source ? cardFromToken(params.source) : null;
      const customer: TCustomer = {
        id: id('cus'),
        email: String(params.email ?? ''),
        name: String(params.name ?? ''),
        card,
        metadata: (params.metadata as TParams) ?? {},
      };
      customers.set(customer.id, customer);
      return customerJson(customer);
    }
    if (customerPath) {
      const customer = findCustomer(customerPath[1]);
      if (method === 'GET') return customerJson(customer);
      if (method === 'DELETE') {
        customer.deleted = true;
        return customerJson(customer);
      }
      if (method === 'POST') {
        if (params.source) customer.card = cardFromToken(params.source);
        return customerJson(customer);
      }
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      const customer = findCustomer(params.customer);
      const price = priceOf(params);
      chargeCard(customer);
      const subscription: TSubscription = {
        id: id('sub'),
        customer: customer.id,
        status: 'active',
        itemId: id('si'),
        price,
        periodEnd: Math.floor(Date.now() / 1000) + 30 * 86_400,
        latestInvoice: id('in'),
        metadata: (params.metadata as TParams) ?? {},
      };
      subscriptions.set(subscription.id, subscription);
      return subscriptionJson(subscription, params.expand);
    }
    if (subscriptionPath) {
      const subscription = findSubscription(subscriptionPath[1]!);
      if (method === 'GET') return subscriptionJson(subscription, params.expand);
      if (method === 'DELETE') {
        subscription.status = 'canceled';
        return subscriptionJson(subscription, params.expand);
      }
      if (method === 'POST') {
        const price = priceOf(params);
        const item = (params.items as { id?: string }[])[0]!;
        if (item.id && item.id !== subscription.itemId) throw missing('subscription_item', item.id, 'items[0][id]');
        chargeCard(findCustomer(subscription.customer));
        subscription.price = price;
        subscription.latestInvoice = id('in');
        return subscriptionJson(subscription, params.expand);
      }
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const customer = findCustomer(params.customer);
      if (params.payment_method !== customer.card?.id)
        throw missing('payment_method', params.payment_method, 'payment_method');
      chargeCard(customer);
      const intent = {
        id: id('pi'),
        object: 'payment_intent',
        amount: Number(params.amount),
        currency: params.currency,
        customer: customer.id,
        status: 'succeeded',
        metadata: params.metadata ?? {},
      };
      paymentIntents.set(intent.id, intent);
      return intent;
    }
    throw new StripeError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}).`,
    });
  };

  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stripe.test');
      const method = request.method ?? 'GET';
      const params =
        method === 'GET' || method === 'DELETE' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(body);
      const key = request.headers['idempotency-key'] as string | undefined;
      requests.push({ method, path: url.pathname, params, idempotencyKey: key });
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
        response.end(JSON.stringify(json));
      };
      if (!/^Bearer sk_test_\w+/.test(request.headers.authorization ?? '')) {
        send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } });
        return;
      }
      const fingerprint = `${method} ${url.pathname} ${body}`;
      if (key && method === 'POST') {
        const previous = idempotent.get(key);
        if (previous && previous.fingerprint !== fingerprint) {
          send(400, {
            error: {
              type: 'idempotency_error',
              message:
                'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            },
          });
          return;
        }
        if (previous) {
          send(previous.status, previous.body, { 'idempotent-replayed': 'true' });
          return;
        }
      }
      let status = 200;
      let json: unknown;
      try {
        json = route(method, url.pathname, params);
      } catch (error) {
        if (!(error instanceof StripeError)) throw error;
        status = error.status;
        json = { error: error.body };
      }
      if (key && method === 'POST') idempotent.set(key, { fingerprint, status, body: json });
      send(status, json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    customers,
    subscriptions,
    paymentIntents,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

export type TStripeFake = Awaited<ReturnType<typeof startStripeFake>>;
