import { LIST_MESSAGES, type TImportMapping } from '@sendwell/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callsTo, stubApi } from '../../test/api';
import { buildImport } from '../../test/lists';
import { renderWithApp } from '../../test/render';
import { ImportCsvModal } from './ImportCsvModal';

const LIST = { id: 5, address: 'news@mg.example.com' };
const GENERIC_NAMES = 'GET /api/ajax/get-generic-emails';
const START = 'POST /api/mailing-lists/5/imports';
const IMPORT = 'GET /api/mailing-lists/imports/11';

const stubImport = (extra: Record<string, unknown> = {}) =>
  stubApi({
    [GENERIC_NAMES]: { status: true, emails: ['info', 'sales', 'support', 'office'], importMaxBytes: 1024 * 1024 },
    ...extra,
  });

const renderModal = () => renderWithApp(<ImportCsvModal list={LIST} onClose={vi.fn()} />);

const chooseFile = (content: string, name = 'members.csv') => {
  const file = new File([content], name, { type: 'text/csv' });
  fireEvent.change(screen.getByLabelText('CSV file'), { target: { files: [file] } });
};

/** The file has been read when its columns are on screen. */
const chooseCsv = async (content: string) => {
  chooseFile(content);
  await screen.findByRole('table', { name: 'Column mapping' });
};

const save = () => fireEvent.click(screen.getByRole('button', { name: 'Save Member List' }));

const mappingSent = (fetchMock: ReturnType<typeof stubApi>): TImportMapping => {
  const [body] = callsTo(fetchMock, START);
  return JSON.parse(String((body as FormData).get('mapping')));
};

describe('ImportCsvModal', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('names the list it imports into and refuses a file that is not CSV', async () => {
    stubImport();
    renderModal();
    expect(await screen.findByText('Import members into news@mg.example.com')).toBeTruthy();

    chooseFile('a,b', 'members.xlsx');
    expect(await screen.findByText(LIST_MESSAGES.csvFormat)).toBeTruthy();
    save();
    expect(await screen.findByText(LIST_MESSAGES.uploadFirst)).toBeTruthy();
  });

  it('refuses a file above the server’s import limit before uploading it', async () => {
    const fetchMock = stubImport();
    renderModal();
    await waitFor(() => expect(callsTo(fetchMock, GENERIC_NAMES)).toHaveLength(1));
    // The limit arrives with the generic names; give the answer a moment to land.
    await new Promise((resolve) => setTimeout(resolve, 100));
    chooseFile(`email\n${'a@example.com\n'.repeat(90_000)}`);
    expect(await screen.findByText(new RegExp(LIST_MESSAGES.csvTooLarge))).toBeTruthy();
    expect(callsTo(fetchMock, START)).toHaveLength(0);
  });

  it('maps and locks a column headed email, and previews email and name', async () => {
    stubImport();
    renderModal();
    await chooseCsv('Name,Email,City\nAda,ada@example.com,London\nGrace,grace@example.com,Arlington\n');

    expect((screen.getByLabelText('My file has headers') as HTMLInputElement).checked).toBe(true);
    const email = screen.getByLabelText('Use of Email') as HTMLSelectElement;
    expect(email.value).toBe('email');
    expect(email.disabled).toBe(true);
    expect((screen.getByLabelText('Use of Name') as HTMLSelectElement).value).toBe('name');
    expect((screen.getByLabelText('Use of City') as HTMLSelectElement).value).toBe('field');
    expect((screen.getByLabelText('Field name for City') as HTMLInputElement).value).toBe('city');

    const preview = within(screen.getByRole('table', { name: 'Preview' }));
    expect(preview.getByText('ada@example.com')).toBeTruthy();
    expect(preview.getByText('Grace')).toBeTruthy();
  });

  it('reads First Name and Last Name as the Name, joined, and sends both; the user can take one back (issue 29 item 4)', async () => {
    const fetchMock = stubImport({ [START]: { status: true, message: 'Import started.', data: buildImport() } });
    renderModal();
    await chooseCsv('Email Address,First Name,Last Name,Company\nann@example.com,Ann,Lee,Initech\n');

    expect((screen.getByLabelText('Use of First Name') as HTMLSelectElement).value).toBe('name');
    expect((screen.getByLabelText('Use of Last Name') as HTMLSelectElement).value).toBe('name');
    const preview = () => within(screen.getByRole('table', { name: 'Preview' }));
    expect(preview().getByText('Ann Lee')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Use of Last Name'), { target: { value: 'field' } });
    expect(preview().getByText('Ann')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Use of Last Name'), { target: { value: 'name' } });
    save();
    await waitFor(() => expect(callsTo(fetchMock, START)).toHaveLength(1));
    expect(mappingSent(fetchMock)).toMatchObject({
      emailColumn: 0,
      nameColumns: [1, 2],
      fields: [{ column: 3, key: 'company' }],
    });
  });

  it('asks for the email column when none is mapped', async () => {
    const fetchMock = stubImport();
    renderModal();
    await chooseCsv('contact,name\nada@example.com,Ada\n');

    const contact = screen.getByLabelText('Use of contact') as HTMLSelectElement;
    expect(contact.disabled).toBe(false);
    fireEvent.change(contact, { target: { value: 'skip' } });
    save();

    expect(await screen.findByText(LIST_MESSAGES.selectEmail)).toBeTruthy();
    expect(callsTo(fetchMock, START)).toHaveLength(0);
  });

  it('refuses a CSV whose first row has no valid email, pointing at the header row', async () => {
    const fetchMock = stubImport();
    renderModal();
    await chooseCsv('Contact,Name\nada@example.com,Ada\n');

    fireEvent.click(screen.getByLabelText('My file has headers'));
    save();

    expect(await screen.findByText(LIST_MESSAGES.headerRow)).toBeTruthy();
    expect(callsTo(fetchMock, START)).toHaveLength(0);
  });

  it('says the first row must be valid when a headerless file starts with a typo, instead of guessing headers', async () => {
    const fetchMock = stubImport();
    renderModal();
    await chooseCsv('john.smith.example.com,John,Smith\nann@example.com,Ann,Lee\nbob@example.com,Bob,Lee\n');

    expect((screen.getByLabelText('My file has headers') as HTMLInputElement).checked).toBe(false);
    // Said at once, before any click on Save.
    expect(screen.getByTestId('first-row-problem').textContent).toBe(LIST_MESSAGES.headerRow);
    // The row's other cells are not offered as custom fields named after it.
    expect(screen.queryByDisplayValue('john')).toBeNull();
    expect(screen.queryByDisplayValue('smith')).toBeNull();
    expect((screen.getByLabelText('Use of Column 1') as HTMLSelectElement).value).toBe('email');

    fireEvent.click(screen.getByLabelText('My file has headers'));
    expect(screen.getByTestId('first-row-problem').textContent).toBe(LIST_MESSAGES.headerLooksLikeAddress);
    save();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(callsTo(fetchMock, START)).toHaveLength(0);
  });

  it('warns about generic addresses and sends the choice to remove them', async () => {
    const fetchMock = stubImport({
      [START]: { status: true, message: LIST_MESSAGES.importQueued, data: buildImport() },
      [IMPORT]: { data: buildImport() },
    });
    renderModal();
    await chooseCsv('email\ninfo@a.com\nada@example.com\nsales@b.com\nsupport@c.com\noffice@d.com\n');

    const warning = within(await screen.findByTestId('generic-warning'));
    expect(warning.getByText(LIST_MESSAGES.genericWarning)).toBeTruthy();
    expect(warning.getByText('info@a.com')).toBeTruthy();
    expect(warning.getByText('support@c.com')).toBeTruthy();
    expect(warning.queryByText('office@d.com')).toBeNull();
    expect(warning.getByText('...and 1 more')).toBeTruthy();

    const remove = screen.getByLabelText('Remove generic addresses') as HTMLInputElement;
    expect(remove.checked).toBe(false);
    fireEvent.click(remove);
    save();

    expect(await screen.findByText(LIST_MESSAGES.importQueued)).toBeTruthy();
    const [body] = callsTo(fetchMock, START);
    expect((body as FormData).get('file')).toBeInstanceOf(File);
    expect(mappingSent(fetchMock)).toEqual({
      hasHeaders: true,
      emailColumn: 0,
      nameColumn: null,
      nameColumns: [],
      fields: [],
      removeGeneric: true,
      verify: false,
    });
  });

  it('says when every address is generic and removes them without asking', async () => {
    const fetchMock = stubImport({
      [START]: { status: true, message: LIST_MESSAGES.importQueued, data: buildImport() },
      [IMPORT]: { data: buildImport() },
    });
    renderModal();
    await chooseCsv('email\ninfo@a.com\nsales@b.com\n');

    expect(await screen.findByText(LIST_MESSAGES.allGeneric)).toBeTruthy();
    const remove = screen.getByLabelText('Remove generic addresses') as HTMLInputElement;
    expect(remove.checked).toBe(true);
    expect(remove.disabled).toBe(true);

    save();
    await screen.findByText(LIST_MESSAGES.importQueued);
    expect(mappingSent(fetchMock).removeGeneric).toBe(true);
  });

  it('follows the import to its end and shows the counts', async () => {
    stubImport({
      [START]: { status: true, message: LIST_MESSAGES.importQueued, data: buildImport() },
      [IMPORT]: {
        data: buildImport({
          status: 'finished',
          stage: 'done',
          bytes_read: 1000,
          rows_read: 4,
          added: 3,
          skipped: 1,
          skipped_reasons: { 'invalid email address': 1 },
          has_report: true,
        }),
      },
    });
    renderModal();
    await chooseCsv('email\nada@example.com\ngrace@example.com\n');
    save();

    expect(await screen.findByText('Success', {}, { timeout: 4000 })).toBeTruthy();
    expect(screen.getByText(/3 added, 0 updated, 1 skipped/)).toBeTruthy();
    expect(screen.getByRole('link', { name: /skipped rows/ }).getAttribute('href')).toBe(
      '/api/mailing-lists/imports/11/skipped',
    );
  });

  it('shows why an import failed as a warning', async () => {
    stubImport({
      [START]: { status: true, message: LIST_MESSAGES.importQueued, data: buildImport() },
      [IMPORT]: { data: buildImport({ status: 'failed', error: 'This file is not text.' }) },
    });
    renderModal();
    await chooseCsv('email\nada@example.com\n');
    save();

    expect(await screen.findByText('Warning', {}, { timeout: 4000 })).toBeTruthy();
    expect(screen.getByText('This file is not text.')).toBeTruthy();
  });

  it('shows the server’s refusal of the upload in the dialog', async () => {
    stubImport({
      [START]: () =>
        new Response(JSON.stringify({ status: false, message: LIST_MESSAGES.csvTooLarge }), {
          status: 413,
          headers: { 'Content-Type': 'application/json' },
        }),
    });
    renderModal();
    await chooseCsv('email\nada@example.com\n');
    save();

    await waitFor(() => expect(screen.getByText(LIST_MESSAGES.csvTooLarge)).toBeTruthy());
  });
});
