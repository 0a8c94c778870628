import { useEffect, useState } from 'react';

/** `true` only once `value` has stayed true for `delayMs`; drops back at once. */
export const useDelayedFlag = (value: boolean, delayMs: number): boolean => {
  const [hasWaited, setHasWaited] = useState(false);
  useEffect(() => {
    if (!value) {
      setHasWaited(false);
      return;
    }
    const timer = setTimeout(() => setHasWaited(true), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return value && hasWaited;
};
