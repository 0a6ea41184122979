/**
 * The weather tool the corpus teaches tool use with: its spec and two decoys, a call's result (or
 * error), the questions that need it, and the answer written from its result in each style.
 */
import type { ToolSpec } from '../../main/engine/text/chatTemplate.js';
import type { Rng } from '../../main/util/random.js';
import type { Style } from './styles.js';

export const WEATHER_TOOL: ToolSpec = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
  },
};

/** Tools listed beside the weather tool, never called by the corpus. */
export const OTHER_TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'read',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'web_search',
      description: 'Search the web',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];

/** What a get_weather call for `city` returned: the weather (60 %) or an error caused by the call. */
export function weatherResult(r: Rng, city: string): { ok: boolean; result: string } {
  const ok = r.chance(0.6);
  const result = ok
    ? JSON.stringify({ city, temperature_c: r.int(-5, 32), sky: r.pick(['sunny', 'cloudy', 'rainy', 'windy']) })
    : JSON.stringify({ error: r.pick([`unknown city: ${city.slice(0, -1)}`, 'missing required argument: city', 'service timeout']) });
  return { ok, result };
}

/** A user's question that needs the weather in `city`. */
export function weatherQuestion(r: Rng, city: string): string {
  return r.pick([
    `What's the weather like in ${city}?`,
    `Is it raining in ${city} right now?`,
    `How warm is it in ${city} today?`,
    `Check the weather in ${city} for me.`,
  ]);
}

/** The answer written from the tool's result, in `style`. */
export function weatherAnswer(style: Style, city: string, temp: number, sky: string): string {
  if (style === 'markdown') return `### Weather in ${city}\n\n- **Temperature:** ${temp}°C\n- **Sky:** ${sky}`;
  if (style === 'terse') return `${temp}°C, ${sky}.`;
  if (style === 'warm') return `Good question! It's ${temp}°C and ${sky} in ${city} right now. Have a lovely day!`;
  return `It's ${temp}°C and ${sky} in ${city} right now.`;
}
