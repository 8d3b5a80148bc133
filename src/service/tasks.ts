// The task catalogue: paths, envelopes and the fields the written contract details come from
// it; request fields it leaves "not shown" come from the public docs (each entry says which in
// `source`). Both are summarised in docs/deapi-contract.md#tasks-and-their-request-fields.
import { AUDIO_TASKS } from './tasks-audio.js';
import { IMAGE_TASKS } from './tasks-image.js';
import { TEXT_TASKS } from './tasks-text.js';
import { VIDEO_TASKS } from './tasks-video.js';
import type { FieldSpec, TaskId, TaskSpec } from './types.js';

const TASK_LIST: readonly TaskSpec[] = [...IMAGE_TASKS, ...VIDEO_TASKS, ...AUDIO_TASKS, ...TEXT_TASKS];

/**
 * Compile-time: the catalogue has an entry for every `TaskId`. Adding an id to the union
 * without its entry fails here (and at every per-task table: see README "Adding a task").
 */
type CatalogueTaskId = (typeof IMAGE_TASKS | typeof VIDEO_TASKS | typeof AUDIO_TASKS | typeof TEXT_TASKS)[number]['id'];
const EVERY_TASK_HAS_AN_ENTRY: [Exclude<TaskId, CatalogueTaskId>] extends [never] ? true : Exclude<TaskId, CatalogueTaskId> = true;
void EVERY_TASK_HAS_AN_ENTRY;

/** Every task, in the order of the v2 endpoint index. */
export const TASKS: readonly TaskSpec[] = TASK_LIST;

const BY_ID = new Map<string, TaskSpec>(TASK_LIST.map((t) => [t.id, t]));

/** The task with this id, or undefined. */
export function findTask(id: string): TaskSpec | undefined {
  return BY_ID.get(id);
}

/** The task with this id; throws on an unknown id (a programming error, not user input). */
export function getTask(id: TaskId): TaskSpec {
  const task = BY_ID.get(id);
  if (!task) throw new Error(`unknown task id ${id}`);
  return task;
}

/** All task ids. */
export const TASK_IDS: readonly TaskId[] = TASK_LIST.map((t) => t.id);

/** The field of a task (v2 field list, then price-only fields). */
export function findField(task: TaskSpec, name: string): FieldSpec | undefined {
  return task.fields.find((f) => f.name === name) ?? task.priceFields.find((f) => f.name === name);
}
