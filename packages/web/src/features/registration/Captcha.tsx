// Registers <altcha-widget>: ALTCHA's proof of work, solved in the browser, no third party.
import 'altcha';
import { Input } from '@mantine/core';
import { registrationApi, routeUrl } from '@sendwell/contracts';
import type { AltchaWidgetElement } from 'altcha';
import type {} from 'altcha/types/react';
import { type Ref, useEffect, useEffectEvent, useImperativeHandle, useRef, useState } from 'react';

export type TCaptchaHandle = {
  /** Back to unverified. A solution is accepted once, so every failed submission needs a new one. */
  reset: () => void;
};

type TStateChange = { state: string; payload: string | null };

type TProps = {
  /** The payload to send as `altcha` once verified; `null` otherwise. */
  onPayloadChange: (payload: string | null) => void;
  error?: string;
  ref?: Ref<TCaptchaHandle>;
};

const CHALLENGE_URL = routeUrl(registrationApi.captchaChallenge);
const CONFIGURATION = JSON.stringify({ hideLogo: true, hideFooter: true });

export const Captcha = ({ onPayloadChange, error, ref }: TProps) => {
  const widgetRef = useRef<AltchaWidgetElement>(null);
  // The widget's state on the wrapper (`data-state`), for tests and styling to read without its shadow DOM.
  const [state, setState] = useState('unverified');
  const reportPayload = useEffectEvent((payload: string | null) => onPayloadChange(payload));

  useEffect(() => {
    const widget = widgetRef.current;
    if (!widget) return;
    const onStateChange = (event: Event) => {
      const detail = (event as CustomEvent<TStateChange>).detail;
      setState(detail.state);
      // Expired, errored, verifying again: anything but verified leaves nothing to send.
      reportPayload(detail.state === 'verified' && detail.payload ? detail.payload : null);
    };
    widget.addEventListener('statechange', onStateChange);
    return () => {
      widget.removeEventListener('statechange', onStateChange);
      // A widget shown again starts unverified; a payload kept from before would not match it.
      reportPayload(null);
    };
  }, []);

  useImperativeHandle(
    ref,
    () => ({
      reset: () => {
        widgetRef.current?.reset();
        setState('unverified');
        onPayloadChange(null);
      },
    }),
    [onPayloadChange],
  );

  return (
    <Input.Wrapper error={error} data-testid="captcha" data-state={state}>
      <altcha-widget ref={widgetRef} challenge={CHALLENGE_URL} name="altcha" configuration={CONFIGURATION} />
    </Input.Wrapper>
  );
};
