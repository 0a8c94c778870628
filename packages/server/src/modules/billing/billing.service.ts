import { randomUUID } from 'node:crypto';
import {
  CREDIT_PACKS,
  DEFAULT_FREE_PLAN_ID,
  REGISTRATION_MESSAGES,
  type TBuyCreditsRequest,
  type TChangePlanRequest,
  type TSubscriptionState,
} from '@sendwell/contracts';
import type Stripe from 'stripe';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { fieldError, HttpError } from '../../platform/errors';
import { isCardError, isStripeError, type TStripe } from '../../providers/stripe';
import { changeCredits, hasCreditEntry, removeCredits } from '../credits/credits.service';
import { findPlan } from '../plans/plans.service';
import * as repository from './billing.repository';

type TPlan = NonNullable<Awaited<ReturnType<typeof findPlan>>>;

export const PAID_PLANS_UNAVAILABLE_MESSAGE =
  'Paid plans are not available on this server yet. Choose a free plan, or ask the operator.';
const PURCHASES_UNAVAILABLE_MESSAGE =
  'Credit purchases are not available on this server. Ask the operator for credits.';
const CREDIT_PRICES = new Map<number, number>(CREDIT_PACKS.map((pack) => [pack.credits, pack.price]));
const PROVIDER_FAILED_MESSAGE = 'The payment provider could not complete the request. Please try again in a moment.';

/**
 * Runs a Stripe call and turns its failures into answers: a refused card is Stripe's own
 * sentence (spec §8), an unusable card token is the spec's card-field message, and
 * anything else is a retryable 502 that shows no internals.
 */
const callStripe = async <T>(platform: TPlatform, call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    if (isCardError(error)) throw new HttpError(402, error.message, 'CARD_DECLINED');
    if (isStripeError(error) && error.type === 'StripeInvalidRequestError' && error.param === 'source') {
      throw fieldError('stripeToken', REGISTRATION_MESSAGES.card);
    }
    platform.log.error({ err: error }, 'Stripe request failed');
    throw new HttpError(502, PROVIDER_FAILED_MESSAGE, 'PAYMENT_PROVIDER');
  }
};

const requireStripe = (platform: TPlatform, message = PAID_PLANS_UNAVAILABLE_MESSAGE): TStripe => {
  if (!platform.stripe) throw new HttpError(409, message, 'STRIPE_NOT_CONFIGURED');
  return platform.stripe;
};

/** A paid plan can be sold only with Stripe configured and a Stripe price to charge. */
export const requirePaidPlanPrice = (platform: TPlatform, plan: TPlan): { stripe: TStripe; price: string } => {
  const stripe = requireStripe(platform);
  if (!plan.stripe_price_id) throw fieldError('package_id', PAID_PLANS_UNAVAILABLE_MESSAGE);
  return { stripe, price: plan.stripe_price_id };
};

const customerIdOf = (customer: string | { id: string } | null) =>
  typeof customer === 'string' ? customer : (customer?.id ?? null);

const periodEndOf = (subscription: Stripe.Subscription): Date | null => {
  const end = subscription.items?.data?.[0]?.current_period_end;
  return end ? new Date(end * 1000) : null;
};

/** The first invoice of a subscription, when Stripe has already been paid for it. */
const paidInvoiceOf = (subscription: Stripe.Subscription): string | null => {
  const invoice = subscription.latest_invoice;
  return invoice && typeof invoice === 'object' && invoice.status === 'paid' ? invoice.id : null;
};

/** A paid invoice brings the plan's monthly credits, once per invoice whichever path sees it first. */
const addMonthlyCredits = async (trx: Executor, userId: number, plan: TPlan, invoiceId: string) => {
  if (plan.monthly_credits <= 0) return;
  if (await hasCreditEntry(trx, 'mon-balance-add', invoiceId)) return;
  await changeCredits(trx, { userId, type: 'mon-balance-add', quantity: plan.monthly_credits, reference: invoiceId });
};

/** A paid plan ending takes back up to its monthly credits (never below zero) and returns the user to the free plan. */
const endPaidPlan = async (trx: Executor, userId: number, plan: TPlan | undefined, subscriptionId: string) => {
  if (plan && plan.monthly_credits > 0 && !(await hasCreditEntry(trx, 'mon-balance-remove', subscriptionId))) {
    await removeCredits(trx, {
      userId,
      type: 'mon-balance-remove',
      amount: plan.monthly_credits,
      reference: subscriptionId,
    });
  }
  await repository.updateBilling(trx, userId, {
    plan_id: DEFAULT_FREE_PLAN_ID,
    stripe_subscription_id: null,
    subscription_status: 'canceled',
    current_period_end: null,
  });
};

const recordSubscription = async (
  trx: Executor,
  userId: number,
  plan: TPlan,
  customerId: string,
  subscription: Stripe.Subscription,
) => {
  await repository.updateBilling(trx, userId, {
    plan_id: plan.id,
    stripe_customer_id: customerId,
    stripe_subscription_id: subscription.id,
    subscription_status: subscription.status,
    current_period_end: periodEndOf(subscription),
  });
  const invoiceId = paidInvoiceOf(subscription);
  if (invoiceId) await addMonthlyCredits(trx, userId, plan, invoiceId);
};

const createSubscription = (stripe: TStripe, customerId: string, price: string, userId: number, key: string) =>
  stripe.subscriptions.create(
    {
      customer: customerId,
      items: [{ price }],
      // A card that cannot pay the first invoice fails here, with the card's message, instead of leaving an unpaid subscription.
      payment_behavior: 'error_if_incomplete',
      expand: ['latest_invoice'],
      metadata: { sendwell_user_id: String(userId) },
    },
    { idempotencyKey: key },
  );

/**
 * Registration's payment step, inside the transaction that creates the user: the Stripe
 * customer (with the card) and the subscription. A refused card throws, the transaction
 * rolls back and no user is left behind; the customer created for it is deleted again.
 * Keys derive from the new user id, so Stripe's retries of one attempt never charge twice.
 */
export const subscribeNewUser = async (
  platform: TPlatform,
  trx: Executor,
  user: { id: number; name: string; email: string },
  plan: TPlan,
  stripeToken: string,
): Promise<{ customerId: string; subscriptionId: string }> => {
  const { stripe, price } = requirePaidPlanPrice(platform, plan);
  const customer = await callStripe(platform, () =>
    stripe.customers.create(
      { email: user.email, name: user.name, source: stripeToken, metadata: { sendwell_user_id: String(user.id) } },
      { idempotencyKey: `sendwell-register-${user.id}-customer` },
    ),
  );
  try {
    const subscription = await callStripe(platform, () =>
      createSubscription(stripe, customer.id, price, user.id, `sendwell-register-${user.id}-subscription`),
    );
    await recordSubscription(trx, user.id, plan, customer.id, subscription);
    return { customerId: customer.id, subscriptionId: subscription.id };
  } catch (error) {
    await stripe.customers.del(customer.id).catch((cleanup: unknown) => {
      platform.log.warn(
        { err: cleanup, customer: customer.id },
        'could not delete the Stripe customer of a failed sign-up',
      );
    });
    throw error;
  }
};

/** When registration's own commit fails after Stripe took the subscription, give it back. */
export const cancelOrphanSubscription = async (platform: TPlatform, subscriptionId: string) => {
  await platform.stripe?.subscriptions.cancel(subscriptionId).catch((error: unknown) => {
    platform.log.error(
      { err: error, subscription: subscriptionId },
      'could not cancel the subscription of a failed sign-up',
    );
  });
};

export const getSubscriptionState = async (db: Executor, userId: number): Promise<TSubscriptionState> => {
  const user = await repository.findBillingUser(db, userId);
  return {
    planId: user.plan_id,
    subscription: user.stripe_subscription_id
      ? {
          status: user.subscription_status ?? 'active',
          currentPeriodEnd: user.current_period_end?.toISOString() ?? null,
        }
      : null,
    // Customers are only ever created with a card.
    hasCard: user.stripe_customer_id !== null,
  };
};

/** A customer for this user, created with the given card, or the existing one with the card replaced when one is given. */
const ensureCustomer = async (
  platform: TPlatform,
  stripe: TStripe,
  user: Awaited<ReturnType<typeof repository.findBillingUser>>,
  stripeToken: string | undefined,
  key: string,
): Promise<string> => {
  if (user.stripe_customer_id) {
    if (stripeToken) {
      await callStripe(platform, () =>
        stripe.customers.update(user.stripe_customer_id!, { source: stripeToken }, { idempotencyKey: `${key}-card` }),
      );
    }
    return user.stripe_customer_id;
  }
  if (!stripeToken) throw fieldError('stripeToken', REGISTRATION_MESSAGES.card);
  const customer = await callStripe(platform, () =>
    stripe.customers.create(
      { email: user.email, name: user.name, source: stripeToken, metadata: { sendwell_user_id: String(user.id) } },
      { idempotencyKey: `${key}-customer` },
    ),
  );
  await repository.updateBilling(platform.db, user.id, { stripe_customer_id: customer.id });
  return customer.id;
};

/**
 * Moves a user to another plan. Free: the Stripe subscription (if any) is cancelled now
 * and the paid plan ends. Paid: an existing subscription switches price (prorated);
 * otherwise one is created, with the card on file or the one given.
 */
export const changePlan = async (
  platform: TPlatform,
  userId: number,
  request: TChangePlanRequest,
): Promise<TSubscriptionState> => {
  const target = await findPlan(platform.db, request.package_id);
  if (!target) throw fieldError('package_id', REGISTRATION_MESSAGES.package);
  const user = await repository.findBillingUser(platform.db, userId);
  if (user.plan_id === target.id) throw fieldError('package_id', 'You are already on this plan.');
  const key = `sendwell-plan-${userId}-${randomUUID()}`;

  if (target.is_free) {
    const subscriptionId = user.stripe_subscription_id;
    if (subscriptionId) {
      const stripe = requireStripe(platform);
      await callStripe(platform, () => stripe.subscriptions.cancel(subscriptionId, {}, { idempotencyKey: key }));
    }
    await platform.db.transaction().execute(async (trx) => {
      const current = await repository.findBillingUser(trx, userId, { forUpdate: true });
      if (subscriptionId) await endPaidPlan(trx, userId, await findPlan(trx, current.plan_id), subscriptionId);
      await repository.updateBilling(trx, userId, { plan_id: target.id });
    });
    return getSubscriptionState(platform.db, userId);
  }

  const { stripe, price } = requirePaidPlanPrice(platform, target);
  const customerId = await ensureCustomer(platform, stripe, user, request.stripeToken, key);
  let subscription: Stripe.Subscription;
  if (user.stripe_subscription_id) {
    const current = await callStripe(platform, () => stripe.subscriptions.retrieve(user.stripe_subscription_id!));
    const item = current.items.data[0];
    subscription = await callStripe(platform, () =>
      stripe.subscriptions.update(
        current.id,
        {
          items: [{ ...(item ? { id: item.id } : {}), price }],
          proration_behavior: 'create_prorations',
          payment_behavior: 'error_if_incomplete',
          expand: ['latest_invoice'],
        },
        { idempotencyKey: `${key}-update` },
      ),
    );
  } else {
    subscription = await callStripe(platform, () =>
      createSubscription(stripe, customerId, price, userId, `${key}-subscription`),
    );
  }
  await platform.db.transaction().execute(async (trx) => {
    await repository.findBillingUser(trx, userId, { forUpdate: true });
    await recordSubscription(trx, userId, target, customerId, subscription);
  });
  return getSubscriptionState(platform.db, userId);
};

/**
 * Buy Credits: one payment for one pack, charged at once. The credits land in the same
 * request when Stripe confirms the payment; the `payment_intent.succeeded` webhook would
 * add them otherwise, and never twice (one entry per payment).
 */
export const buyCredits = async (platform: TPlatform, userId: number, request: TBuyCreditsRequest) => {
  const stripe = requireStripe(platform, PURCHASES_UNAVAILABLE_MESSAGE);
  const pack = CREDIT_PRICES.get(request.credits);
  if (pack === undefined) throw fieldError('credits', 'Please choose one of the credit packs.');
  const user = await repository.findBillingUser(platform.db, userId);
  const key = `sendwell-credits-${userId}-${randomUUID()}`;
  // The card given becomes the customer's card (so the next purchase needs none); without one, the card on file pays.
  const customerId = await ensureCustomer(platform, stripe, user, request.stripeToken, key);
  const customer = await callStripe(platform, () => stripe.customers.retrieve(customerId));
  const card =
    'deleted' in customer && customer.deleted ? null : customerIdOf(customer.default_source as string | null);
  if (!card) throw fieldError('stripeToken', REGISTRATION_MESSAGES.card);
  const intent = await callStripe(platform, () =>
    stripe.paymentIntents.create(
      {
        amount: Math.round(pack * 100),
        currency: platform.config.currency,
        customer: customerId,
        payment_method: card,
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        // A card that wants a bank confirmation fails here instead of waiting on a step this form cannot show.
        error_on_requires_action: true,
        description: `${request.credits.toLocaleString('en-US')} Sendwell credits`,
        metadata: { sendwell_user_id: String(userId), sendwell_credits: String(request.credits) },
      },
      { idempotencyKey: `${key}-payment` },
    ),
  );
  if (intent.status !== 'succeeded') {
    throw new HttpError(
      402,
      'Your bank asked to confirm this payment, which this form cannot do. Nothing was added; please try another card.',
      'CARD_DECLINED',
    );
  }
  return platform.db.transaction().execute((trx) => grantPurchase(trx, userId, request.credits, intent.id));
};

const grantPurchase = async (trx: Executor, userId: number, credits: number, paymentId: string) => {
  if (await hasCreditEntry(trx, 'sale', paymentId)) return null;
  return changeCredits(trx, { userId, type: 'sale', quantity: credits, reference: paymentId });
};

/**
 * Applies one verified Stripe event, once: the event id is recorded in the transaction
 * that applies it, so a replay finds it and does nothing, and a failure leaves it to
 * Stripe's retry. Events Sendwell does not use are recorded and ignored.
 */
export const handleStripeEvent = async (platform: TPlatform, event: Stripe.Event): Promise<'applied' | 'duplicate'> =>
  platform.db.transaction().execute(async (trx) => {
    if (!(await repository.recordStripeEvent(trx, event))) return 'duplicate';
    switch (event.type) {
      case 'invoice.paid': {
        const invoice = event.data.object;
        const customerId = customerIdOf(invoice.customer);
        const user = customerId ? await repository.findBillingUserByCustomer(trx, customerId) : undefined;
        if (!user?.stripe_subscription_id || !invoice.id) break;
        const plan = await findPlan(trx, user.plan_id);
        if (plan && !plan.is_free) await addMonthlyCredits(trx, user.id, plan, invoice.id);
        break;
      }
      case 'customer.subscription.updated': {
        const subscription = event.data.object;
        const user = await repository.findBillingUserByCustomer(trx, customerIdOf(subscription.customer) ?? '');
        if (!user || user.stripe_subscription_id !== subscription.id) break;
        await repository.updateBilling(trx, user.id, {
          subscription_status: subscription.status,
          current_period_end: periodEndOf(subscription),
        });
        break;
      }
      case 'customer.subscription.deleted': {
        const subscription = event.data.object;
        const user = await repository.findBillingUserByCustomer(trx, customerIdOf(subscription.customer) ?? '');
        if (!user || user.stripe_subscription_id !== subscription.id) break;
        await endPaidPlan(trx, user.id, await findPlan(trx, user.plan_id), subscription.id);
        break;
      }
      case 'payment_intent.succeeded': {
        const intent = event.data.object;
        const userId = Number(intent.metadata?.sendwell_user_id);
        const credits = Number(intent.metadata?.sendwell_credits);
        if (!Number.isInteger(userId) || !CREDIT_PRICES.has(credits)) break;
        const exists = await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
        if (exists) await grantPurchase(trx, userId, credits, intent.id);
        break;
      }
      default:
        break;
    }
    return 'applied';
  });
