import { Group, Text } from '@mantine/core';
import { shortDay } from './chartAxis';

/** The colour key above a chart; the chart's own name and table carry the figures, so it is hidden from screen readers. */
export const ChartLegend = ({ series }: { series: readonly { label: string; color: string }[] }) => (
  <Group gap="md" mb={4} aria-hidden>
    {series.map((one) => (
      <Group key={one.label} gap={4}>
        <span style={{ width: 12, height: 3, background: one.color, display: 'inline-block' }} />
        <Text size="xs">{one.label}</Text>
      </Group>
    ))}
  </Group>
);

type TValueAxisProps = {
  /** From axisTicks. */
  ticks: number[];
  /** A value's height in the chart's SVG. */
  y: (value: number) => number;
  /** Where the plot starts and ends across the SVG. */
  left: number;
  right: number;
};

/** The value axis inside a chart's SVG: a light line across the plot at each tick, its count at the left. */
export const ValueAxis = ({ ticks, y, left, right }: TValueAxisProps) =>
  ticks.map((tick) => (
    <g key={tick}>
      <line x1={left} x2={right} y1={y(tick)} y2={y(tick)} stroke="var(--mantine-color-gray-3)" />
      <text x={left - 4} y={y(tick) + 4} fontSize="10" textAnchor="end" fill="var(--mantine-color-gray-8)">
        {tick.toLocaleString('en-US')}
      </text>
    </g>
  ));

type TDayAxisProps = {
  /** YYYY-MM-DD, one a point. */
  days: string[];
  x: (index: number) => number;
  /** The labels' baseline in the SVG. */
  y: number;
  /** Which days are labelled: every fifth by default. */
  isLabelled?: (index: number) => boolean;
};

/** The day labels under a chart's plot (MM/DD). */
export const DayAxis = ({ days, x, y, isLabelled = (index) => index % 5 === 0 }: TDayAxisProps) =>
  days.map((day, index) =>
    isLabelled(index) ? (
      <text key={day} x={x(index)} y={y} fontSize="10" textAnchor="middle" fill="var(--mantine-color-gray-8)">
        {shortDay(day)}
      </text>
    ) : null,
  );

type TSeriesLineProps = {
  values: readonly number[];
  color: string;
  x: (index: number) => number;
  y: (value: number) => number;
};

/** One series of a chart as a line across its plot. */
export const SeriesLine = ({ values, color, x, y }: TSeriesLineProps) => (
  <polyline
    fill="none"
    stroke={color}
    strokeWidth={2}
    points={values.map((value, index) => `${x(index)},${y(value)}`).join(' ')}
  />
);
