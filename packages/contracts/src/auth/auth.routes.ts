import { z } from 'zod';
import { ZStatusMessage } from '../http/errors';
import { defineRoute } from '../http/routes';
import { ZCsrfResponse, ZForgotPasswordRequest, ZLoginRequest, ZResetPasswordRequest, ZUserInformation } from './auth';

/** Sign-in, sign-out, the signed-in user and forgotten passwords. */
export const authApi = {
  csrf: defineRoute({ method: 'GET', path: '/csrf', response: ZCsrfResponse }),
  login: defineRoute({
    method: 'POST',
    path: '/login',
    body: ZLoginRequest,
    response: z.object({ status: z.literal(true), data: ZUserInformation }),
  }),
  logout: defineRoute({ method: 'POST', path: '/logout', response: ZStatusMessage }),
  userInformation: defineRoute({
    method: 'GET',
    path: '/user-information',
    response: z.object({ data: ZUserInformation }),
  }),
  forgotPassword: defineRoute({
    method: 'POST',
    path: '/forgot-password',
    body: ZForgotPasswordRequest,
    response: ZStatusMessage,
  }),
  resetPassword: defineRoute({
    method: 'POST',
    path: '/reset-password',
    body: ZResetPasswordRequest,
    response: ZStatusMessage,
  }),
};
