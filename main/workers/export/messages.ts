/** What the export worker (main/workers/export/worker.ts) is given, and its one answer. */
export interface ExportWorkerData {
  modelDir: string;
  /** The checkpoint folder holding the PEFT adapter to merge. */
  checkpointDir: string;
  /** The folder to write `model.gguf` into. */
  dir: string;
  /** The model name written into the file's metadata. */
  name: string;
}

export type FromExportWorker = { type: 'done'; files: string[]; warnings: string[] } | { type: 'fatal'; message: string };
