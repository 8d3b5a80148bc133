import { detectPlatform, parseHttpUrl, PLATFORM_NAMES, PLATFORMS_BY_FIELD } from '../../service/index.js';
import { WORKFLOW_CODES, WorkflowError } from '../workflow-error.js';
import { ItemProblems, itemLabel, problemItem } from './item-problems.js';
import type { Rule } from './rule-context.js';
import { taskSteps } from './task-steps.js';
import { knownFieldValues } from './static-field-values.js';

/**
 * Links given as a source (`video_url` of video.describe, `source_url` of transcription) point
 * at a platform the service takes: YouTube, X/Twitter, Twitch, Kick, TikTok (and X Spaces for
 * transcription). Anything else would be refused with a 422 at run time; here it is a located
 * error per item before anything is sent.
 */
export const sourceLinks: Rule = {
  name: 'sourceLinks',
  check(context) {
    const { workflow, report } = context;
    for (const step of taskSteps(workflow)) {
      const problems = new ItemProblems();
      for (const field of step.spec.fields) {
        const allowed = field.url ? PLATFORMS_BY_FIELD[field.name] : undefined;
        const value = step.with.get(field.name);
        if (allowed === undefined || value === undefined) continue;
        const at = workflow.locator.at(value.path);
        const names = allowed.map((p) => PLATFORM_NAMES[p]);
        const expected = `expected a link to ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
        for (const known of knownFieldValues(context, step, field.name)) {
          if (known.value.kind !== 'value' || typeof known.value.value !== 'string') continue;
          const link = known.value.value;
          const url = parseHttpUrl(link);
          // A value that is not a link at all is the field's own rule to report.
          if (url === undefined) continue;
          const platform = detectPlatform(link);
          if (platform !== undefined && allowed.includes(platform)) continue;
          const host = platform === undefined ? url.hostname : PLATFORM_NAMES[platform];
          const label = itemLabel(known.k, known.itemValue === link ? undefined : known.itemValue);
          problems.add(`${field.name} ${link}`, () => new WorkflowError(WORKFLOW_CODES.limit, at, `${expected}, got ${JSON.stringify(link)} (${host})${label}`, problemItem(step.id, known.k)));
        }
      }
      problems.flush(report);
    }
  },
};
