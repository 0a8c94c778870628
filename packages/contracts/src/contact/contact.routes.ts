import { ZContactRequest } from '../billing/billing';
import { ZStatusMessage } from '../http/errors';
import { defineRoute } from '../http/routes';

export const contactApi = {
  contactUs: defineRoute({ method: 'POST', path: '/contact-us', body: ZContactRequest, response: ZStatusMessage }),
};
