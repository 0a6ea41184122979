/** How screens reach the stores: one Services object for the whole app, through React context. */
import { createContext, useContext } from 'react';
import type { Services } from './services.js';

export const ServicesContext = createContext<Services | null>(null);

export function useServices(): Services {
  const s = useContext(ServicesContext);
  if (!s) throw new Error('useServices() outside <ServicesContext.Provider>: render the app through main.tsx');
  return s;
}
