import { Stack } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A ring that fills with a share (0 to 1), what it means written in its middle: the spam
 * score, a campaign's delivered, opened and bounced. Read out as one image by its `label`;
 * the middle is for the eye only.
 */
export const RadialGauge = ({
  share,
  size,
  stroke = size / 10,
  color,
  label,
  isRounded = false,
  testId,
  children,
}: {
  share: number;
  size: number;
  stroke?: number;
  color: string;
  label: string;
  /** Round ends on the filled arc. */
  isRounded?: boolean;
  testId?: string;
  children: ReactNode;
}) => {
  const radius = (size - stroke) / 2;
  const circumference = 2 * Math.PI * radius;
  const filled = Math.max(0, Math.min(1, share)) * circumference;
  const circle = { cx: size / 2, cy: size / 2, r: radius, fill: 'none', strokeWidth: stroke };
  return (
    <div
      role="img"
      aria-label={label}
      style={{ position: 'relative', width: size, height: size, flex: 'none' }}
      data-testid={testId}
    >
      <svg width={size} height={size} viewBox={`0 0 ${size} ${size}`} aria-hidden>
        <circle {...circle} stroke="var(--mantine-color-gray-2)" />
        <circle
          {...circle}
          stroke={color}
          strokeLinecap={isRounded ? 'round' : undefined}
          strokeDasharray={`${filled} ${circumference}`}
          transform={`rotate(-90 ${size / 2} ${size / 2})`}
        />
      </svg>
      <Stack gap={0} align="center" justify="center" style={{ position: 'absolute', inset: 0 }} aria-hidden>
        {children}
      </Stack>
    </div>
  );
};
