import { fireEvent, screen, waitFor } from '@testing-library/react';
import dayjs from 'dayjs';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithApp } from '../test/render';
import { DateRangeFilter, type TDateRange } from './DateRangeFilter';

const Harness = ({ withTime, onChange }: { withTime?: boolean; onChange: (value: TDateRange) => void }) => {
  const [value, setValue] = useState<TDateRange>({});
  return (
    <DateRangeFilter
      withTime={withTime}
      value={value}
      onChange={(next) => {
        setValue(next);
        onChange(next);
      }}
    />
  );
};

const month = dayjs().startOf('month');
/** The select's text box (its option list is labelled by the same label). */
const timeInput = (label: string) =>
  screen.getAllByLabelText(label).find((element) => element instanceof HTMLInputElement) as HTMLInputElement;
const pickDay = (day: dayjs.Dayjs) => fireEvent.click(screen.getByRole('button', { name: day.format('D MMMM YYYY') }));

describe('DateRangeFilter', () => {
  it('filters once both days are picked, as the spec’s first_date and last_date', async () => {
    const onChange = vi.fn();
    renderWithApp(<Harness onChange={onChange} />);

    fireEvent.click(screen.getByRole('button', { name: 'Date range' }));
    await screen.findByRole('button', { name: month.format('D MMMM YYYY') });
    pickDay(month);
    // Half a range is no filter yet.
    expect(onChange).not.toHaveBeenCalled();
    pickDay(month.add(2, 'day'));
    expect(onChange).toHaveBeenLastCalledWith({
      first_date: month.format('YYYY-MM-DD'),
      last_date: month.add(2, 'day').format('YYYY-MM-DD'),
    });
    expect(screen.queryByLabelText('From time')).toBeNull();
  });

  it('adds a time to an end in 30-minute steps, sent as YYYY-MM-DD HH:mm:ss', async () => {
    const onChange = vi.fn();
    renderWithApp(<Harness withTime onChange={onChange} />);
    const fromTime = timeInput('From time');
    expect(fromTime.disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Date range' }));
    await screen.findByRole('button', { name: month.format('D MMMM YYYY') });
    pickDay(month);
    pickDay(month);
    await waitFor(() => expect(fromTime.disabled).toBe(false));

    fireEvent.click(fromTime);
    fireEvent.click(await screen.findByRole('option', { name: '9:30 AM' }));
    expect(onChange).toHaveBeenLastCalledWith({
      first_date: `${month.format('YYYY-MM-DD')} 09:30:00`,
      last_date: month.format('YYYY-MM-DD'),
    });

    fireEvent.click(timeInput('To time'));
    fireEvent.click(await screen.findByRole('option', { name: '5:00 PM' }));
    expect(onChange).toHaveBeenLastCalledWith({
      first_date: `${month.format('YYYY-MM-DD')} 09:30:00`,
      last_date: `${month.format('YYYY-MM-DD')} 17:00:00`,
    });
  });
});
