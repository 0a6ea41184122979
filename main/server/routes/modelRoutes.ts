import type { Handler } from '../routeTypes.js';

export const health: Handler<'health'> = (ctx) => ({
  status: ctx.closing() ? 'shutting_down' : 'ok',
  model: ctx.options.servedModelName,
  ...ctx.engine.load,
});

export const listModels: Handler<'models.list'> = (ctx) => ({
  object: 'list',
  data: [
    {
      id: ctx.options.servedModelName,
      object: 'model',
      created: 0,
      owned_by: 'clawloop',
      context_length: ctx.engine.info.contextLength,
    },
  ],
});
