import { Loader } from '@mantine/core';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '../test/render';

describe('theme', () => {
  it('gives a named loader the role its name needs (axe aria-prohibited-attr), and keeps a hidden one hidden', () => {
    renderWithApp(
      <>
        <Loader aria-label="Loading the list" />
        <Loader aria-hidden />
      </>,
    );
    expect(screen.getByRole('status', { name: 'Loading the list' })).toBeTruthy();
    expect(screen.getAllByRole('status')).toHaveLength(1);
  });
});
