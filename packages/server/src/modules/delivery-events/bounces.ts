import type { TPlatform } from '../../platform/context';
import {
  applyOutcomes,
  findRecipientsByRefs,
  findSendRecipientsByEmails,
  refOfMessageId,
  refOfVerp,
  type TEventRecipient,
  type TIntakeEvent,
  type TRefPurpose,
} from '../delivery/delivery.service';
import { LOCAL_REPORTS_ADDRESS, type TInboundListener, type TInboundRoute } from '../inbound/inbound.service';
import { parseReport, reasonLabel, type TNamedOutcome, type TOriginalRefs, type TReport } from './bounce-parser';

/**
 * Bounces and complaints of SMTP and Gmail sends (R32). Each message leaves with the
 * envelope sender `bounces+<VERP reference>@BOUNCE_DOMAIN` (`delivery/message.ts`); what the
 * world sends back about it comes to Sendwell's bounce receiver (an inbound listener in each
 * worker, BOUNCE_SMTP_PORT): receiving servers' bounces to that VERP address, and feedback
 * loops' complaints to the VERP address or to the feedback address (FEEDBACK_ADDRESS). The
 * report is read (`bounce-parser.ts`) and recorded, through the one entry point every intake
 * uses, for the recipients it is about:
 *
 * - the message it is about: the VERP address it came to, else what it quotes of the
 *   original (the Message-ID, the VERP Return-Path, the List-Unsubscribe reference), each
 *   checked against its own purpose's MAC (R34);
 * - a bounce: every recipient it names who was a recipient of that message's send gets its
 *   own outcome (issue 27 §8); when it names none of them (an alias expanded, a forward),
 *   the message's own recipient gets the report's outcome;
 * - hard: a failed event (permanent) and a bounce suppression with the server's words;
 *   soft: a failed event (temporary), counted toward the temporary suppression rule;
 *   delayed: a deferred event only;
 * - a complaint: a complained event and a complaint suppression, unsubscribed everywhere;
 * - a DMARC failure report: nothing against anyone, logged for the operator;
 * - an auto-reply, vacation notice, read receipt or challenge: nothing (250, so its sender
 *   stops), logged.
 *
 * Each is recorded once per report and recipient however often the report arrives (its
 * Message-ID, or a digest of it, and the recipient's id), so a hard bounce or complaint is
 * always attributable to its send and recipient (the circuit breaker reads them).
 */

type TFound = TEventRecipient;

/** The recipients these references name, for one purpose, once each. */
const lookUp = async (platform: TPlatform, purpose: TRefPurpose, refs: string[]) =>
  refs.length === 0
    ? []
    : (await findRecipientsByRefs(platform, platform.db, purpose, refs)).flatMap((found) =>
        found
          ? [
              {
                id: found.id,
                send_id: found.send_id,
                email: found.email,
                user_id: found.user_id,
                account_id: found.account_id,
              },
            ]
          : [],
      );

/**
 * The messages a report is about: the VERP addresses it came to; else what it quotes of the
 * original (Message-ID, VERP Return-Path, unsubscribe reference), in that order of trust.
 */
const messagesOf = async (platform: TPlatform, verpRefs: string[], original: TOriginalRefs): Promise<TFound[]> => {
  const byVerp = await lookUp(platform, 'verp', verpRefs);
  if (byVerp.length > 0) return uniqueRecipients(byVerp);
  const domain = platform.config.bounces?.domain;
  const quoted = [
    ...(await lookUp(
      platform,
      'message-id',
      original.messageIds.flatMap((id) => refOfMessageId(id) ?? []),
    )),
    ...(domain
      ? await lookUp(
          platform,
          'verp',
          original.envelopeSenders.flatMap((address) => refOfVerp(domain, address) ?? []),
        )
      : []),
    ...(await lookUp(platform, 'unsubscribe', original.unsubscribeRefs)),
  ];
  return uniqueRecipients(quoted);
};

const uniqueRecipients = (recipients: TFound[]) => [...new Map(recipients.map((found) => [found.id, found])).values()];

/** One outcome for a message whose report names none of its send's recipients: never harsher than all of them. */
const combinedOutcome = (outcomes: TNamedOutcome[]): TNamedOutcome => {
  const [first] = outcomes;
  if (outcomes.every((outcome) => outcome.outcome === first!.outcome)) return first!;
  const soft = outcomes.find((outcome) => outcome.outcome === 'soft');
  return soft ?? { ...first!, outcome: 'soft' };
};

/** Which recipient gets which outcome: those the report names within the message's send, else the message's own. */
const targetsOf = async (platform: TPlatform, message: TFound, outcomes: TNamedOutcome[]) => {
  const named = outcomes.filter((outcome) => outcome.address !== null);
  const recipients = await findSendRecipientsByEmails(
    platform.db,
    message.send_id,
    named.map((outcome) => outcome.address!),
  );
  const targets: { recipient: TFound; outcome: TNamedOutcome }[] = [];
  for (const recipient of recipients) {
    const outcome = named.find((item) => item.address!.toLowerCase() === recipient.email.toLowerCase());
    if (outcome) targets.push({ recipient, outcome });
  }
  if (targets.length === 0) targets.push({ recipient: message, outcome: combinedOutcome(outcomes) });
  return targets;
};

const bounceEvent = (
  recipient: TFound,
  outcome: TNamedOutcome,
  report: Extract<TReport, { kind: 'bounce' }>,
): TIntakeEvent => ({
  recipient,
  userId: recipient.user_id,
  accountId: recipient.account_id,
  email: recipient.email,
  type: outcome.outcome === 'delayed' ? 'deferred' : 'failed',
  severity: outcome.outcome === 'hard' ? 'permanent' : 'temporary',
  source: 'smtp',
  providerEventId: `dsn:${report.reportId}:${recipient.id}`,
  detail: outcome.diagnostic,
  suppression: {
    reason: reasonLabel(outcome.reason),
    message: outcome.diagnostic,
    description: `${report.description}${outcome.status ? `, Status ${outcome.status}` : ''}`,
  },
});

const complaintEvent = (recipient: TFound, report: Extract<TReport, { kind: 'complaint' }>): TIntakeEvent => ({
  recipient,
  userId: recipient.user_id,
  accountId: recipient.account_id,
  email: recipient.email,
  type: 'complained',
  source: 'smtp',
  providerEventId: `arf:${report.reportId}:${recipient.id}`,
  detail: report.detail,
  suppression: {
    reason: `complaint (${report.feedbackType})`,
    message: report.detail,
    description: report.description,
  },
});

/**
 * Reads a report that came to these VERP references (none for the feedback address) and
 * records what it says; answers the report and how many events were new.
 */
export const receiveReport = async (platform: TPlatform, raw: Buffer, verpRefs: string[]) => {
  const report = parseReport(raw);
  switch (report.kind) {
    case 'none':
      platform.log.info({ why: report.why }, 'report received: nothing to record');
      return { report, recorded: 0 };
    case 'auth-failure':
      // About the sending domain's SPF/DKIM/DMARC, not about a recipient: the operator's to read.
      platform.log.warn({ detail: report.detail, reportId: report.reportId }, 'DMARC failure report received');
      return { report, recorded: 0 };
    default:
      break;
  }
  const messages = await messagesOf(platform, verpRefs, report.original);
  if (messages.length === 0) {
    platform.log.warn(
      { kind: report.kind, reportId: report.reportId },
      'report about a message Sendwell cannot tie to a recipient: nothing recorded',
    );
    return { report, recorded: 0 };
  }
  const events: TIntakeEvent[] = [];
  for (const message of messages) {
    if (report.kind === 'complaint') {
      events.push(complaintEvent(message, report));
      continue;
    }
    for (const { recipient, outcome } of await targetsOf(platform, message, report.outcomes)) {
      events.push(bounceEvent(recipient, outcome, report));
    }
  }
  const isNew = await platform.db.transaction().execute((trx) => applyOutcomes(platform, trx, events));
  return { report, recorded: isNew.filter(Boolean).length };
};

const bouncesOf = (platform: TPlatform) => platform.config.bounces;

/**
 * Bounce intake's route: mail for VERP addresses on the bounce domain, from anyone, on any
 * listener; and, from inside the process only, the local reports address (the test inbox's
 * late bounces on a run without BOUNCE_DOMAIN). It answers 250 to auto-replies too, so their
 * senders stop retrying; when it cannot record, the route throws and the receiver answers
 * 451 (the sender tries again).
 */
export const bounceRoute: TInboundRoute = {
  name: 'bounces',
  accepts: (platform, address, session) => {
    const domain = bouncesOf(platform)?.domain;
    if (domain && refOfVerp(domain, address)) return true;
    return session.isInProcess && address.toLowerCase() === LOCAL_REPORTS_ADDRESS;
  },
  receive: async (platform, message) => {
    const domain = bouncesOf(platform)?.domain;
    const verpRefs = domain ? message.rcptTo.flatMap((address) => refOfVerp(domain, address) ?? []) : [];
    const { recorded, report } = await receiveReport(platform, message.raw, verpRefs);
    platform.log.info({ recorded, kind: report.kind }, 'bounce message received');
    return { accepted: true };
  },
};

/**
 * The feedback loops' address (FEEDBACK_ADDRESS, default `fbl@BOUNCE_DOMAIN`): complaints
 * (ARF, JMRP) and whatever else a feedback loop sends, tied to its message by what it
 * quotes of the original.
 */
export const feedbackRoute: TInboundRoute = {
  name: 'feedback',
  accepts: (platform, address) => {
    const feedback = bouncesOf(platform)?.feedbackAddress;
    return Boolean(feedback) && address.trim().toLowerCase() === feedback;
  },
  receive: async (platform, message) => {
    const { recorded, report } = await receiveReport(platform, message.raw, []);
    platform.log.info({ recorded, kind: report.kind }, 'feedback report received');
    return { accepted: true };
  },
};

/** The largest report taken (a report quotes the original; 2 MB holds any sane one). */
const MAX_BOUNCE_BYTES = 2 * 1024 * 1024;

/**
 * The bounce receiver, when BOUNCE_DOMAIN is set (point the domain's MX at it, port 25
 * forwarded to BOUNCE_SMTP_PORT): takes mail only for the routes' addresses (anything else: 550).
 */
export const bounceListener: TInboundListener = {
  name: 'bounces',
  port: (config) => config.bounces?.port ?? null,
  host: () => '0.0.0.0',
  banner: 'Sendwell bounce receiver',
  maxBytes: () => MAX_BOUNCE_BYTES,
  maxClients: 50,
  login: { kind: 'none' },
};
