import { Text } from '@mantine/core';
import { formatSpamScore, scoreVerdict } from '@sendwell/contracts';
import { RadialGauge } from '../../components/RadialGauge';

/** Colours by score, each dark enough for its text on white (WCAG AA). */
export const scoreColor = (score: number) =>
  score >= 9
    ? 'var(--mantine-color-green-text)'
    : score >= 7
      ? 'var(--mantine-color-teal-text)'
      : score >= 5
        ? 'var(--mantine-color-orange-text)'
        : 'var(--mantine-color-red-text)';

/** The score out of 10 as a ring that fills with it, the number and its verdict in the middle. */
export const ScoreGauge = ({ score, size = 160 }: { score: number; size?: number }) => {
  const verdict = scoreVerdict(score);
  const color = scoreColor(score);
  return (
    <RadialGauge
      share={score / 10}
      size={size}
      stroke={size / 12}
      color={color}
      isRounded
      label={`Score ${formatSpamScore(score)} out of 10: ${verdict}`}
      testId="spam-score"
    >
      <Text fw={700} fz={size / 4.5} lh={1} style={{ color }}>
        {formatSpamScore(score)}
      </Text>
      <Text size="sm" c="dimmed">
        out of 10
      </Text>
      <Text size="sm" fw={600} style={{ color }}>
        {verdict}
      </Text>
    </RadialGauge>
  );
};
