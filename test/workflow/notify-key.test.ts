import { describe, expect, it } from 'vitest';
import { lines, TRANSCRIBE_URL, useTempDirs, validateText } from './helpers.js';

const tempDir = useTempDirs();
const steps = ['steps:', '  t:', '    task: audio.transcribe', `    with: ${TRANSCRIBE_URL}`];

describe('notify:', () => {
  it('takes url or url_env, with when to send; the default is failure and deferred', async () => {
    const result = await validateText(tempDir, ['version: 1', 'notify:', '  - { url: "https://hooks.example.com/x", on: [always] }', '  - { url_env: SLACK_WEBHOOK_URL }', ...steps].join('\n'));
    expect(lines(result)).toEqual([]);
    expect(result.graph?.workflow.notify.map((n) => [n.url ?? n.urlEnv, n.on])).toEqual([
      ['https://hooks.example.com/x', ['always']],
      ['SLACK_WEBHOOK_URL', ['failure', 'deferred']],
    ]);
  });

  it('refuses a URL that is not http(s) and an unknown `on` value, at their places', async () => {
    const result = await validateText(tempDir, ['version: 1', 'notify:', '  - { url: "ftp://x", on: [sometimes] }', ...steps].join('\n'));
    expect(lines(result)).toEqual([
      expect.stringMatching(/^wf\.yaml:3:12: notify\[0\]\.url: expected a URL starting with http:\/\/ or https:\/\//),
      expect.stringMatching(/^wf\.yaml:3:28: notify\[0\]\.on\[0\]: expected one of "failure", "deferred", "always"/),
    ]);
  });
});
