const UNITS = ['KB', 'MB', 'GB'];

/** A message size as people read it: 512 B, 1.5 KB, 2.3 MB. */
export const formatSize = (bytes: number): string => {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
};
