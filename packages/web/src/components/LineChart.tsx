import { Table, VisuallyHidden } from '@mantine/core';
import { ChartLegend, DayAxis, SeriesLine, ValueAxis } from './ChartParts';
import { axisTicks } from './chartAxis';

export type TSeries = { label: string; color: string; values: number[] };

/**
 * A small line chart (SVG) of daily series, its figures also in a visually hidden table for
 * screen readers; `title` names both.
 */
export const LineChart = ({ title, days, series }: { title: string; days: string[]; series: TSeries[] }) => {
  const width = 720;
  const height = 180;
  const pad = { left: 36, right: 8, top: 8, bottom: 22 };
  const { top: max, ticks } = axisTicks(Math.max(1, ...series.flatMap((one) => one.values)));
  const x = (index: number) => pad.left + (index * (width - pad.left - pad.right)) / Math.max(1, days.length - 1);
  const y = (value: number) => pad.top + (height - pad.top - pad.bottom) * (1 - value / max);
  const totals = series.map((one) => `${one.values.reduce((sum, value) => sum + value, 0)} ${one.label.toLowerCase()}`);
  return (
    <>
      <ChartLegend series={series} />
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-label={`${title}: ${totals.join(', ')}.`}>
        <ValueAxis ticks={ticks} y={y} left={pad.left} right={width - pad.right} />
        <DayAxis days={days} x={x} y={height - 6} />
        {series.map((one) => (
          <SeriesLine key={one.label} values={one.values} color={one.color} x={x} y={y} />
        ))}
      </svg>
      <VisuallyHidden>
        <Table>
          <caption>{title}</caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Day</Table.Th>
              {series.map((one) => (
                <Table.Th key={one.label}>{one.label}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {days.map((day, index) => (
              <Table.Tr key={day}>
                <Table.Td>{day}</Table.Td>
                {series.map((one) => (
                  <Table.Td key={one.label}>{one.values[index]}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </VisuallyHidden>
    </>
  );
};
