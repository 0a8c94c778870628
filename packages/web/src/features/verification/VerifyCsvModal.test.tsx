import { VERIFY_MESSAGES } from '@sendwell/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callsTo, stubApi } from '../../test/api';
import { jsonResponse, renderWithApp } from '../../test/render';
import { VerifyCsvModal } from './VerifyCsvModal';

const STORE = 'POST /api/tools/verify-emails/file/store';
const STORED = {
  alreadyCheckedCount: 0,
  totalDuplicate: 0,
  alreadyChecked: [],
  creditToBeUsed: 2,
  listId: 9,
  listStatus: 'draft',
  total: 2,
  addresses: 2,
  invalid: 0,
  emptyRows: 1,
  skipped: [{ line: 3, text: '', reason: 'no email in the mapped column' }],
};

const chooseCsv = async (content: string) => {
  fireEvent.change(screen.getByLabelText('CSV file'), {
    target: { files: [new File([content], 'people.csv', { type: 'text/csv' })] },
  });
  await screen.findByRole('table', { name: 'Column mapping' });
};

const FILE =
  'Name,Work,Home\nAnn,ann@work.example,ann@home.example\nBob,bob@work.example,\nCat,cat@work.example,cat@home.example\n';

describe('VerifyCsvModal', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('offers each column as the email or nothing, and sends only the chosen column', async () => {
    const fetchMock = stubApi({ [STORE]: { status: true, data: STORED } });
    const onStored = vi.fn();
    renderWithApp(<VerifyCsvModal opened onStored={onStored} onClose={vi.fn()} />);
    await chooseCsv(FILE);

    // The guess is the column with the most addresses; the user picks the other one.
    expect((screen.getByLabelText('Use of Work') as HTMLSelectElement).value).toBe('email');
    const home = screen.getByLabelText('Use of Home') as HTMLSelectElement;
    expect([...home.options].map((option) => option.value)).toEqual(['email', 'skip']);
    fireEvent.change(home, { target: { value: 'email' } });
    expect((screen.getByLabelText('Use of Work') as HTMLSelectElement).value).toBe('skip');
    expect(within(screen.getByRole('table', { name: 'Preview' })).getByText('ann@home.example')).toBeTruthy();
    expect(screen.getByTestId('verify-csv-counts').textContent).toBe(
      '2 distinct addresses; 1 row has no email in this column.',
    );

    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(onStored).toHaveBeenCalledWith(STORED));
    const [body] = callsTo(fetchMock, STORE);
    expect(JSON.parse(String(body))).toEqual({
      csvFile: [['Home'], ['ann@home.example'], [''], ['cat@home.example']],
      emailColumn: 0,
      hasHeaders: true,
    });
  });

  it('asks for the email column when none is chosen, and shows the server’s refusal', async () => {
    const fetchMock = stubApi({
      [STORE]: () => jsonResponse({ message: 'Nope', errors: { csvFile: [VERIFY_MESSAGES.tooMany] } }, 422),
    });
    renderWithApp(<VerifyCsvModal opened onStored={vi.fn()} onClose={vi.fn()} />);
    await chooseCsv(FILE);
    fireEvent.change(screen.getByLabelText('Use of Work'), { target: { value: 'skip' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText(VERIFY_MESSAGES.selectEmail)).toBeTruthy();
    expect(callsTo(fetchMock, STORE)).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('Use of Home'), { target: { value: 'email' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText(VERIFY_MESSAGES.tooMany)).toBeTruthy();
  });
});
