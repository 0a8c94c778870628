import type { TSpamReport } from '@sendwell/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '../../test/render';
import { ScoreGauge } from './ScoreGauge';
import { SpamReport } from './SpamReport';

const report: TSpamReport = {
  score: 9.4,
  verdict: 'Excellent',
  checks: [
    {
      id: 'parts',
      category: 'content',
      title: 'Message parts',
      status: 'warn',
      penalty: 0.3,
      detail: 'HTML only: no plain-text version.',
      advice: 'Add a plain-text part.',
    },
    {
      id: 'html',
      category: 'content',
      title: 'HTML',
      status: 'warn',
      penalty: 0.3,
      detail: 'Broken HTML.',
      advice: 'Close every tag.',
    },
    {
      id: 'engines',
      category: 'engines',
      title: 'Content engines',
      status: 'warn',
      penalty: 0,
      detail: 'rspamd 0.2 where spam starts at 6. SpamAssassin timed out.',
      advice: null,
    },
  ],
  engines: [
    {
      name: 'rspamd',
      status: 'scored',
      score: 7.7,
      contentScore: 0.2,
      isSpam: false,
      action: 'add header',
      threshold: 6,
      detail: "rspamd's action: add header.",
      rules: [],
    },
    {
      name: 'SpamAssassin',
      status: 'timeout',
      score: null,
      threshold: null,
      detail: 'Did not answer within the time allowed.',
      rules: [],
    },
  ],
  authenticationResults: '',
  fromDomain: 'good.test',
  envelopeFrom: 'bounces@good.test',
  remoteIp: '127.0.0.1',
  sizeBytes: 2048,
  analysedAt: '2026-11-26T07:00:00.000Z',
};

describe('SpamReport', () => {
  it('shows every penalty and category total with one decimal, so small penalties never round away', () => {
    renderWithApp(<SpamReport report={report} />);
    const content = screen.getByRole('region', { name: 'Content' });
    expect(within(content).getAllByText('−0.3 points')).toHaveLength(2);
    expect(within(content).getByText('−0.6 points')).toBeTruthy();
  });

  it('names an engine that timed out, and reads an engine on its content apart from its authentication rules', () => {
    renderWithApp(<SpamReport report={report} />);
    expect(screen.getByText('timed out')).toBeTruthy();
    expect(screen.getByText(/0\.2 on content, 7\.7 in all/)).toBeTruthy();
  });

  it('reads the score with one decimal, a round score too', () => {
    renderWithApp(<ScoreGauge score={9} />);
    expect(screen.getByRole('img', { name: 'Score 9.0 out of 10: Excellent' })).toBeTruthy();
  });
});
