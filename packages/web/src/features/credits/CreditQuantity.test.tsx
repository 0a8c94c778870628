import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '../../test/render';
import { CreditQuantity } from './CreditQuantity';

const colorOf = (text: string) => screen.getByText(text).style.color;

describe('CreditQuantity', () => {
  it('shows credits added in green with a leading plus', () => {
    renderWithApp(<CreditQuantity quantity={500} />);
    expect(colorOf('+500')).toContain('green');
  });

  it('shows credits taken away in red with a minus', () => {
    renderWithApp(<CreditQuantity quantity={-25} />);
    expect(colorOf('-25')).toContain('red');
  });

  it('leaves a zero change in the normal text colour', () => {
    renderWithApp(<CreditQuantity quantity={0} />);
    expect(colorOf('0')).toBe('');
  });
});
