/**
 * The one counting definition (R33; GLOSSARY.md says the same in words): what each figure
 * counts, and the arithmetic every screen does with them. The dashboard, History and its
 * details, the campaign views and the exports read these figures from the same records and
 * compute shares here, so a send reads the same everywhere.
 *
 * Each figure counts recipients, each once, except `deferred` (every put-off attempt) and
 * the raw event lists (an open is an event each time; only the first moves `opened`).
 */
export const FIGURE_NAMES = [
  'recipients',
  'accepted',
  'delivered',
  'deferred',
  'bouncedHard',
  'bouncedSoft',
  'complained',
  'unsubscribed',
  'opened',
  'clicked',
  'unknown',
] as const;
export type TFigureName = (typeof FIGURE_NAMES)[number];
export type TFigures = Record<TFigureName, number>;

/** What each figure counts: the words GLOSSARY.md carries, for tooltips and documentation. */
export const FIGURE_DEFINITIONS: Record<TFigureName | 'bounced', string> = {
  recipients:
    'Addresses a message was sent to, each once per send: accepted, refused or with an unknown outcome. A message that bounces after it was accepted is the same recipient, not another.',
  accepted:
    'Recipients whose message the provider or receiving server took (SMTP 250, Mailgun 200), including those that bounced later. History and the dashboard call it Sent.',
  delivered: 'Recipients whose message the provider reports reached the receiving server (Mailgun only).',
  deferred:
    'Attempts put off: a temporary failure being retried, or a delay notice. Counted per attempt; never a failure.',
  bouncedHard:
    'Recipients whose address is at fault: no such mailbox, no such domain, a closed mailbox. The address is suppressed.',
  bouncedSoft:
    'Recipients whose message failed for good while the address may be fine: a full mailbox, a refusal for content or policy, a temporary failure given up. Counted toward the temporary suppression rule.',
  bounced: 'Hard and soft bounces together: every recipient whose message failed for good, each once.',
  complained: 'Recipients who reported the message as spam (a feedback loop or Mailgun), each once.',
  unsubscribed: 'Recipients who unsubscribed through the message (link, one-click or the provider), each once.',
  opened:
    'Recipients who opened the message at least once, a click included (a reader whose client blocks images still opened what they clicked in); the first open counts, later ones are events only.',
  clicked: 'Recipients who clicked a tracked link at least once.',
  unknown: 'Recipients whose message may or may not have left: the answer never came.',
};

/**
 * What the screens call each event (GLOSSARY.md): the provider's acceptance is *Sent* on
 * History and on the dashboard alike (History's API already names it `sent`; the dashboard's
 * keeps the spec's `accepted`), so one thing reads one way wherever it shows.
 */
export const EVENT_LABELS: Record<string, string> = {
  accepted: 'Sent',
  sent: 'Sent',
  delivered: 'Delivered',
  deferred: 'Deferred',
  failed: 'Failed',
  unknown: 'Unknown',
  opened: 'Opened',
  clicked: 'Clicked',
  complained: 'Complained',
  unsubscribed: 'Unsubscribed',
};
export const eventLabel = (type: string) => EVENT_LABELS[type] ?? type;

export const emptyFigures = (): TFigures => Object.fromEntries(FIGURE_NAMES.map((name) => [name, 0])) as TFigures;

export const addFigures = (left: TFigures, right: Partial<TFigures>): TFigures =>
  Object.fromEntries(FIGURE_NAMES.map((name) => [name, left[name] + (right[name] ?? 0)])) as TFigures;

/** Hard and soft bounces together. */
export const bouncedOf = (figures: Pick<TFigures, 'bouncedHard' | 'bouncedSoft'>) =>
  figures.bouncedHard + figures.bouncedSoft;

/** A share in percent with one decimal, 0 of nothing. */
export const percentOf = (part: number, whole: number) => (whole <= 0 ? 0 : Math.round((part / whole) * 1000) / 10);

/** Every share is of the recipients: one denominator, so the percentages of a screen add up. */
export const ratesOf = (figures: TFigures) => ({
  sent: percentOf(figures.accepted, figures.recipients),
  delivered: percentOf(figures.delivered, figures.recipients),
  opened: percentOf(figures.opened, figures.recipients),
  clicked: percentOf(figures.clicked, figures.recipients),
  bounced: percentOf(bouncedOf(figures), figures.recipients),
  complained: percentOf(figures.complained, figures.recipients),
  unsubscribed: percentOf(figures.unsubscribed, figures.recipients),
});

/**
 * A send's figures from its counters (the engine keeps them per recipient): History's
 * counts, its details and the send's card read them. `bounces` splits the send's failed
 * recipients into hard and soft (its failed events' severities).
 */
export const figuresOfSend = (
  counters: {
    recipients_count: number;
    sent_count: number;
    failed_count: number;
    unknown_count: number;
    delivered_count: number;
    opened_count: number;
    clicked_count: number;
    complained_count: number;
    unsubscribed_count: number;
  },
  bounces: { hard: number; soft: number },
  deferred = 0,
): TFigures => ({
  recipients: counters.recipients_count,
  accepted: counters.sent_count,
  delivered: counters.delivered_count,
  deferred,
  bouncedHard: bounces.hard,
  // A recipient failed at handover without a severity (its message could not be composed) is a soft bounce.
  bouncedSoft: Math.max(counters.failed_count - bounces.hard, bounces.soft),
  complained: counters.complained_count,
  unsubscribed: counters.unsubscribed_count,
  opened: counters.opened_count,
  clicked: counters.clicked_count,
  unknown: counters.unknown_count,
});

/**
 * How far a running send is: recipients settled (accepted, failed or unknown) out of all.
 * A bounce after acceptance does not count twice: a recipient is settled once.
 */
export const progressOf = ({ recipients, waiting }: { recipients: number; waiting: number }) => {
  const handled = Math.max(0, recipients - waiting);
  return { handled, percent: recipients > 0 ? Math.min(100, (handled / recipients) * 100) : 0 };
};

/**
 * Where every open pixel's address starts (the server's `/api/t/o/<ref>/<signature>.gif`).
 * The test inbox shows a message without it: opening a message there is the user looking at
 * what they sent, not its recipient opening it (R33).
 */
export const OPEN_PIXEL_PATH = '/api/t/o/';

/**
 * A message's HTML without its open pixel (any `<img>` whose address goes to the open
 * tracker), for showing it to the sender. Linear in the HTML's length.
 */
export const withoutOpenPixel = (html: string) =>
  html.replace(/<img\b[^>]*?\bsrc\s*=\s*["']?[^"'\s>]*\/api\/t\/o\/[^>]*>/gi, '');
