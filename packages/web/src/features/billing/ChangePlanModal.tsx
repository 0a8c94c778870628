import { Button, Modal, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { showSuccess } from '../../app/toasts';
import { DialogActions } from '../../components/DialogActions';
import { FormError } from '../../components/FormError';
import { formatPlanPrice, planChange } from './billing.format';
import { type TPlan, useChangePlan } from './billing.queries';
import { CardField } from './CardField';
import { showPaymentFailure, useCardToken } from './useCardToken';

type TProps = {
  /** The plan to move to; the dialog is open while there is one. */
  target: TPlan | null;
  current: TPlan | undefined;
  hasCard: boolean;
  publishableKey: string | null;
  onClose: () => void;
};

/** Confirms a plan change; a paid plan with no card on file asks for one here. */
export const ChangePlanModal = ({ target, onClose, ...props }: TProps) => {
  const change = target ? planChange(props.current, target) : null;
  return (
    <Modal opened={target !== null} onClose={onClose} title={target ? `${change} to ${target.name}?` : ''}>
      {/* Keyed by plan, so a dialog opened for another plan starts with an empty card field. */}
      {target && <ChangePlanForm key={target.id} target={target} onClose={onClose} {...props} />}
    </Modal>
  );
};

const ChangePlanForm = ({ target, current, hasCard, publishableKey, onClose }: TProps & { target: TPlan }) => {
  const changePlan = useChangePlan();
  const { cardField, tokenize, isTokenPending, setCardError } = useCardToken();
  const [refusal, setRefusal] = useState<string | null>(null);

  const change = planChange(current, target);
  const needsCard = !target.isFree && !hasCard;

  const confirm = async () => {
    setRefusal(null);
    let stripeToken: string | undefined;
    if (needsCard) {
      stripeToken = await tokenize();
      if (!stripeToken) return;
    }

    changePlan.mutate(
      { package_id: target.id, stripeToken },
      {
        onSuccess: ({ message }) => {
          showSuccess(message, null);
          onClose();
        },
        onError: (error) => showPaymentFailure(error, { isCardAsked: needsCard, setCardError, setRefusal }),
      },
    );
  };

  return (
    <Stack>
      <Text>
        Your plan changes from {current?.name ?? 'your current plan'} to <strong>{target.name}</strong> (
        {formatPlanPrice(target)}).
      </Text>
      {!target.isFree && hasCard && (
        <Text size="sm" c="dimmed">
          The card on file pays for the new plan.
        </Text>
      )}
      {needsCard && publishableKey && <CardField {...cardField} publishableKey={publishableKey} />}
      <FormError message={refusal} />
      <DialogActions onCancel={onClose}>
        <Button loading={isTokenPending || changePlan.isPending} onClick={() => void confirm()}>
          {change}
        </Button>
      </DialogActions>
    </Stack>
  );
};
