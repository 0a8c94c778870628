import { Text } from '@mantine/core';
import { formatCreditChange } from './credits.format';

/** Spec: a quantity above zero shows as success, below zero as danger; the sign says the same without colour. */
const quantityColor = (quantity: number): string | undefined => {
  if (quantity > 0) return 'green';
  if (quantity < 0) return 'red';
  return undefined;
};

export const CreditQuantity = ({ quantity }: { quantity: number }) => (
  <Text size="sm" fw={600} c={quantityColor(quantity)} style={{ fontVariantNumeric: 'tabular-nums' }}>
    {formatCreditChange(quantity)}
  </Text>
);
