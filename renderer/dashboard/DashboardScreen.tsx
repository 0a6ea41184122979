/** Dashboard: the training state with Pause/Resume, the key settings, and the live plots. */
import { useEffect } from 'react';
import { navigate } from '../app/router.js';
import { useServices } from '../app/servicesContext.js';
import { MetricPlots, NoSteps } from './MetricPlots.js';
import { TrainingPanel } from './TrainingPanel.js';
import { TrainingSettingsForm } from './TrainingSettingsForm.js';
import { KEY_TRAINING_FIELDS } from './trainingStore.js';

export function DashboardScreen() {
  const { metrics, training, checkpoints, core } = useServices();
  useEffect(() => {
    void metrics.getState().loadHistory();
    void training.getState().load();
    void checkpoints.getState().load();
    void core.getState().refresh();
  }, [metrics, training, checkpoints, core]);

  return (
    <div className="dashboard">
      <h1>Dashboard</h1>
      <NoSteps />
      <div className="dashboard-top">
        <TrainingPanel />
        <section className="card" aria-labelledby="key-settings">
          <h2 id="key-settings">Training defaults</h2>
          <p className="muted">
            The key ones; all of them are in{' '}
            <a
              href="/settings"
              onClick={(e) => {
                e.preventDefault();
                navigate('/settings');
              }}
            >
              Settings
            </a>
            .
          </p>
          <TrainingSettingsForm fields={KEY_TRAINING_FIELDS} compact />
        </section>
      </div>
      <MetricPlots />
    </div>
  );
}
