import { Select, type SelectProps } from '@mantine/core';
import { timeZoneLabel, timeZoneNames } from '@sendwell/contracts';
import { useMemo } from 'react';

type TProps = Omit<SelectProps, 'data' | 'value' | 'onChange'> & {
  value: string;
  onChange: (timeZone: string) => void;
};

/**
 * Every IANA time zone, labelled with today's offset ('Europe/Berlin (UTC+01:00)'), searched by
 * any part of its name. Registration and Profile use it; the server takes the same names
 * (contracts' `ZTimeZone`).
 */
export const TimeZoneSelect = ({ value, onChange, ...props }: TProps) => {
  const data = useMemo(() => {
    const now = new Date();
    const names = timeZoneNames();
    // A zone stored before the runtime knew it (or spelled differently) stays shown.
    return (names.includes(value) ? names : [value, ...names]).map((name) => ({
      value: name,
      label: timeZoneLabel(name, now),
    }));
  }, [value]);
  return (
    <Select
      searchable
      allowDeselect={false}
      nothingFoundMessage="No time zone by that name; try a city, such as Chicago or Berlin."
      limit={50}
      // The list is built only while open: 400 options stay out of the page, and the label
      // names the input alone.
      comboboxProps={{ keepMounted: false }}
      {...props}
      data={data}
      value={value}
      onChange={(next) => {
        if (next) onChange(next);
      }}
    />
  );
};
