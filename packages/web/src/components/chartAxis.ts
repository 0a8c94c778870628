/**
 * The value axis of a chart of counts: whole-number ticks at a round step (1, 2 or 5 times a
 * power of ten), at most four intervals, from 0 to the first tick at or above the largest
 * value. Halving the largest value and rounding each label gave '1, 1, 0' for a chart whose
 * largest count was 1; counts have no halves.
 */
export const axisTicks = (largest: number): { top: number; ticks: number[] } => {
  const max = Math.max(1, Math.ceil(largest));
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough)!);
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let tick = 0; tick <= top; tick += step) ticks.push(tick);
  return { top, ticks };
};

/** MM/DD from YYYY-MM-DD, for a chart's day labels. */
export const shortDay = (day: string) => `${day.slice(5, 7)}/${day.slice(8, 10)}`;
