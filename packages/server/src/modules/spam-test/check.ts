import type { TSpamCheck } from '@sendwell/contracts';

/**
 * What every one of Sendwell's own message checks is made of: the moment and hosts it is
 * judged against, and the finding it gives back.
 */

export type TMessageContext = {
  /** When the message is judged (its arrival, or now for a composed message): a Date is late or early against it. */
  now: Date;
  /** Sendwell's click-tracking hosts: a tracked link stands for the address it was written with. */
  trackingHosts: string[];
  /**
   * Where the message's own tracked links lead (this server's click-tracking addresses, found
   * by the spam test through delivery's stored links): each such link is checked as its
   * target, the address a reader reaches. A link not here is checked as it is written.
   */
  linkTargets?: Record<string, string>;
};

export const check = (
  category: TSpamCheck['category'],
  id: string,
  title: string,
  status: TSpamCheck['status'],
  penalty: number,
  detail: string,
  advice: string | null = null,
): TSpamCheck => ({ id, category, title, status, penalty, detail, advice });

/** A value shown in a finding, cut where it would crowd the report. */
export const clip = (text: string, length = 120) => (text.length > length ? `${text.slice(0, length)}…` : text);
