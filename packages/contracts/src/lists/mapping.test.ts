import { describe, expect, it } from 'vitest';
import { guessColumnRoles, joinName, nameColumnsOf } from './mapping';

/** Header rows as the tools write them in their exports. */
const MAILCHIMP = [
  'Email Address',
  'First Name',
  'Last Name',
  'Address',
  'Phone Number',
  'MEMBER_RATING',
  'OPTIN_TIME',
  'LAST_CHANGED',
  'TAGS',
];
const MAILCHIMP_MERGE_TAGS = ['Email Address', 'FNAME', 'LNAME', 'MMERGE3'];
const MAUTIC = ['id', 'title', 'firstname', 'lastname', 'company', 'position', 'email', 'mobile', 'last_active'];
const LISTMONK = ['uuid', 'email', 'name', 'attributes', 'status', 'created_at', 'updated_at'];
const HUBSPOT = [
  'Record ID',
  'First Name',
  'Last Name',
  'Email',
  'Phone Number',
  'Contact owner',
  'Last Activity Date',
];
const GOOGLE = ['Name', 'Given Name', 'Additional Name', 'Family Name', 'E-mail 1 - Value'];

describe('nameColumnsOf', () => {
  it('reads first and last names as the Name, in that order, from Mailchimp, HubSpot and Mautic exports', () => {
    expect(nameColumnsOf(MAILCHIMP)).toEqual([1, 2]);
    expect(nameColumnsOf(MAILCHIMP_MERGE_TAGS)).toEqual([1, 2]);
    expect(nameColumnsOf(HUBSPOT)).toEqual([1, 2]);
    expect(nameColumnsOf(MAUTIC)).toEqual([2, 3]);
  });

  it('takes a column that holds the whole name over its parts (listmonk, Google contacts)', () => {
    expect(nameColumnsOf(LISTMONK)).toEqual([2]);
    expect(nameColumnsOf(GOOGLE)).toEqual([0]);
    expect(nameColumnsOf(['E-mail', 'Full Name', 'First Name'])).toEqual([1]);
  });

  it('knows the other words people write, in any case and spacing, and keeps a middle name between', () => {
    expect(nameColumnsOf(['email', 'Given name', 'Surname'])).toEqual([1, 2]);
    expect(nameColumnsOf(['SURNAME', 'email', 'first_name'])).toEqual([2, 0]);
    expect(nameColumnsOf(['First Name', 'Middle Name', 'Last Name', 'E-mail Address'])).toEqual([0, 1, 2]);
    expect(nameColumnsOf(['Vorname', 'Nachname', 'E-Mail'])).toEqual([0, 1]);
  });

  it('finds no name in headers that only look alike, and never the email column', () => {
    expect(nameColumnsOf(['email', 'Contact owner', 'Last Activity Date', 'Company Name', 'title'])).toEqual([]);
    expect(nameColumnsOf(['name'], [0])).toEqual([]);
    expect(nameColumnsOf([null, null])).toEqual([]);
  });
});

describe('joinName', () => {
  it('joins the name columns with one space, leaving out empty cells', () => {
    expect(joinName(['ann@example.com', ' Ann ', 'Lee'], [1, 2])).toBe('Ann Lee');
    expect(joinName(['ann@example.com', 'Ann', ''], [1, 2])).toBe('Ann');
    expect(joinName(['ann@example.com', '', 'Lee'], [1, 2])).toBe('Lee');
    expect(joinName(['ann@example.com'], [1, 2])).toBe('');
    expect(joinName(['x', 'y'.repeat(300)], [1])).toHaveLength(200);
  });
});

describe('guessColumnRoles', () => {
  it('maps a Mailchimp export: the address column found by its contents, the name from two columns, the rest custom fields', () => {
    expect(guessColumnRoles(MAILCHIMP, 0)).toEqual({
      roles: ['email', 'name', 'name', 'field', 'field', 'field', 'field', 'field', 'field'],
      emailColumn: 0,
      isEmailLocked: false,
    });
  });

  it('locks the column headed email (spec §5) whatever column the addresses were guessed in', () => {
    const guess = guessColumnRoles(HUBSPOT, 0);
    expect(guess.emailColumn).toBe(3);
    expect(guess.isEmailLocked).toBe(true);
    expect(guess.roles).toEqual(['field', 'name', 'name', 'email', 'field', 'field', 'field']);
    expect(guessColumnRoles(LISTMONK, null).roles.slice(0, 3)).toEqual(['field', 'email', 'name']);
  });

  it('leaves columns without a header out', () => {
    expect(guessColumnRoles([null, null, null], 1)).toEqual({
      roles: ['skip', 'email', 'skip'],
      emailColumn: 1,
      isEmailLocked: false,
    });
  });
});
