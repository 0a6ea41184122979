import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { API, RouteName } from '../protocol/api.js';
import type { RequestLogFields } from './requestLog.js';
import type { ServerContext } from './serverContext.js';

/** Returned by a handler that wrote its response itself (streams, files). */
export const RESPONDED: unique symbol = Symbol('responded');

/** A request as a handler sees it: path parameters, query and body already validated by the route's schemas. */
export interface RouteRequest<Q = unknown, B = unknown> {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  params: Record<string, string>;
  query: Q;
  body: B;
  /** What the route adds to the request's console line. */
  log: RequestLogFields;
}

type Spec<N extends RouteName> = (typeof API)[N];
type QueryOut<N extends RouteName> = Spec<N> extends { query: z.ZodType } ? z.output<Spec<N>['query']> : Record<string, never>;
type BodyOut<N extends RouteName> = Spec<N> extends { body: z.ZodType } ? z.output<Spec<N>['body']> : undefined;
type Result<N extends RouteName> = Spec<N>['response'] extends { kind: 'json'; schema: z.ZodType }
  ? z.input<Spec<N>['response']['schema']>
  : typeof RESPONDED | z.input<Extract<Spec<N>['response'], { schema: z.ZodType }>['schema']>;

/** The handler of route N: its answer (sent as JSON with 200) or RESPONDED. */
export type Handler<N extends RouteName> = (ctx: ServerContext, r: RouteRequest<QueryOut<N>, BodyOut<N>>) => Promise<Result<N>> | Result<N>;

/** One handler per route of the table; the type system refuses a missing one. */
export type Handlers = { [N in RouteName]: Handler<N> };
