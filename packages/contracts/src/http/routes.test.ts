import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineRoute,
  fillRoutePath,
  routeUrl,
  type TPathParamNames,
  type TRouteCall,
  type TRouteResponse,
} from './routes';

const members = defineRoute({
  method: 'GET',
  path: '/mailing-lists/:listId/members/:id',
  query: z.object({ page: z.coerce.number().default(1), search: z.string().optional() }),
  response: z.object({ data: z.array(z.object({ id: z.number(), email: z.string() })) }),
});

const create = defineRoute({
  method: 'POST',
  path: '/mailing-lists',
  body: z.object({ name: z.string().trim() }),
  response: z.object({ status: z.literal(true), message: z.string() }),
});

describe('route descriptors', () => {
  it('keep the literal method and path they were defined with', () => {
    expect(members.method).toBe('GET');
    expectTypeOf(members.method).toEqualTypeOf<'GET'>();
    expectTypeOf(create.path).toEqualTypeOf<'/mailing-lists'>();
  });

  it('fill each :param of the path, URI-encoded, and prefix /api for the browser', () => {
    expect(fillRoutePath(members, { listId: 7, id: 'a/b c' })).toBe('/mailing-lists/7/members/a%2Fb%20c');
    expect(routeUrl(members, { listId: 7, id: 12 })).toBe('/api/mailing-lists/7/members/12');
    expect(routeUrl(create)).toBe('/api/mailing-lists');
  });

  it('refuse to build a path with a parameter missing or empty', () => {
    expect(() => routeUrl(members, { listId: 7 } as never)).toThrow(
      'GET /mailing-lists/:listId/members/:id needs a value for :id.',
    );
    expect(() => routeUrl(members, { listId: '', id: 1 })).toThrow(/:listId/);
  });

  it('type the path parameters, the query, the body and the answer from the descriptor', () => {
    expectTypeOf<TPathParamNames<'/a/:first/b/:second'>>().toEqualTypeOf<'first' | 'second'>();
    expectTypeOf<TPathParamNames<'/a/b'>>().toEqualTypeOf<never>();
    expectTypeOf<TRouteCall<typeof members>['params']>().toEqualTypeOf<{
      listId: string | number;
      id: string | number;
    }>();
    expectTypeOf<NonNullable<TRouteCall<typeof members>['query']>>().toHaveProperty('search');
    expectTypeOf<TRouteCall<typeof create>['body']>().toEqualTypeOf<{ name: string } | undefined>();
    expectTypeOf<TRouteCall<typeof create>['params']>().toEqualTypeOf<undefined>();
    expectTypeOf<TRouteResponse<typeof create>>().toEqualTypeOf<{ status: true; message: string }>();
  });
});
