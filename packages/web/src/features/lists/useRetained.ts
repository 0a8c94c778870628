import { useState } from 'react';

/**
 * The last non-null value. A modal opened for a row keeps showing that row while it fades out
 * after the row is set back to null; without this its body goes blank mid-animation.
 */
export const useRetained = <T>(value: T | null): T | null => {
  const [retained, setRetained] = useState(value);
  if (value !== null && value !== retained) setRetained(value);
  return value ?? retained;
};
