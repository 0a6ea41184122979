/** A yes/no UI choice (a side column shown or hidden) kept across reloads in localStorage. */
import { useState } from 'react';

export function usePersistentFlag(key: string, initial: boolean): [boolean, (v: boolean) => void] {
  const [value, setValue] = useState(() => {
    try {
      const saved = localStorage.getItem(key);
      return saved === null ? initial : saved === '1';
    } catch {
      return initial;
    }
  });
  const set = (v: boolean) => {
    setValue(v);
    try {
      localStorage.setItem(key, v ? '1' : '0');
    } catch {
      // storage blocked: the choice lasts until the page is closed
    }
  };
  return [value, set];
}
