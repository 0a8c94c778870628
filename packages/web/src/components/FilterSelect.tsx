import { NativeSelect, type NativeSelectProps } from '@mantine/core';

type TProps = Omit<NativeSelectProps, 'onChange' | 'size'> & { onChange: (value: string) => void };

/** A small native select over a table (a filter, a type to apply) that hands its new value over. */
export const FilterSelect = ({ onChange, ...props }: TProps) => (
  <NativeSelect size="xs" onChange={(event) => onChange(event.currentTarget.value)} {...props} />
);
