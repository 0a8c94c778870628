import { Stack, Text } from '@mantine/core';
import { formatSpamScore, scoreVerdict } from '@sendwell/contracts';

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
  const stroke = size / 12;
  const radius = (size - stroke) / 2;
  const circumference = 2 * Math.PI * radius;
  const filled = (Math.max(0, Math.min(10, score)) / 10) * circumference;
  const verdict = scoreVerdict(score);
  const color = scoreColor(score);
  return (
    <div
      role="img"
      aria-label={`Score ${formatSpamScore(score)} out of 10: ${verdict}`}
      style={{ position: 'relative', width: size, height: size, flex: 'none' }}
      data-testid="spam-score"
    >
      <svg width={size} height={size} viewBox={`0 0 ${size} ${size}`} aria-hidden>
        <circle
          cx={size / 2}
          cy={size / 2}
          r={radius}
          fill="none"
          stroke="var(--mantine-color-gray-2)"
          strokeWidth={stroke}
        />
        <circle
          cx={size / 2}
          cy={size / 2}
          r={radius}
          fill="none"
          stroke={color}
          strokeWidth={stroke}
          strokeLinecap="round"
          strokeDasharray={`${filled} ${circumference}`}
          transform={`rotate(-90 ${size / 2} ${size / 2})`}
        />
      </svg>
      <Stack gap={0} align="center" justify="center" style={{ position: 'absolute', inset: 0 }} aria-hidden>
        <Text fw={700} fz={size / 4.5} lh={1} style={{ color }}>
          {formatSpamScore(score)}
        </Text>
        <Text size="sm" c="dimmed">
          out of 10
        </Text>
        <Text size="sm" fw={600} style={{ color }}>
          {verdict}
        </Text>
      </Stack>
    </div>
  );
};
