/**
 * The comparisons made so far (Compare's one-turn sessions, kept out of Chat's list): newest
 * first, each named by its versions and prompt.
 */
import { useEffect, useState } from 'react';
import { useServices } from '../app/servicesContext.js';
import { comparisonsFrom, type Comparison } from '../ui/compareSessions.js';
import { when } from '../ui/format.js';

/** `refresh` changes after each comparison, so the list follows. */
export function PastComparisons({ refresh }: { refresh: unknown }) {
  const { api } = useServices();
  const [items, setItems] = useState<Comparison[] | null>(null);
  useEffect(() => {
    let live = true;
    api
      .sessions()
      .then((list) => live && setItems(comparisonsFrom(list.data)))
      .catch(() => live && setItems(null));
    return () => {
      live = false;
    };
  }, [api, refresh]);
  if (!items?.length) return null;
  return (
    <section className="card" aria-labelledby="past-comparisons">
      <h2 id="past-comparisons">Past comparisons</h2>
      <ul className="past-comparisons">
        {items.slice(0, 20).map((c) => (
          <li key={c.id}>
            {c.label} <span className="muted">· {when(c.at)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
