/**
 * Adopted items in what a run leaves: report.json's per-item `adopted`, the JUnit testcase's
 * system-out and the HTML report's Adopted section, from runs against the emulator whose
 * submission answers were lost (docs/running.md, "Adopted items").
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/contracts/events.js';
import { renderJUnit } from '../../src/report/ci/junit.js';
import { RunReportBuilder } from '../../src/report/files/run-report.js';
import { renderHtmlReport } from '../../src/report/html/html-report.js';
import { buildTimeline } from '../../src/report/html/timeline-model.js';
import type { LoggedEvent } from '../../src/report/terminal/event-log.js';
import { toSnakeCaseKeys } from '../../src/report/terminal/ndjson-renderer.js';
import { expectValid } from '../contract/schemas.js';
import { clips, runDurablyIn } from '../engine/journal/durable-helpers.js';
import { useFastEmulator, useWorkspace } from '../engine/run-helpers.js';
import { dropAnswers, webhookAddress } from '../helpers/webhook-receiver.js';
import { transcribeClips } from '../fixtures/workflows.js';

const TRANSCRIBE = transcribeClips('adopt-report');

function reportOf(events: readonly RunEvent[]) {
  const builder = new RunReportBuilder();
  for (const event of events) builder.handle(event);
  return builder;
}

const logged = (events: readonly RunEvent[]): LoggedEvent[] => events.map((e) => toSnakeCaseKeys(e) as LoggedEvent);

const emulatorConfig = { time_scale: 100, webhooks: { allow_http: true }, jobs: { duration_ms: 4000, scale_by_input: false } };

describe('adopted items in the reports', () => {
  it('an item adopted in the session is adopted: true in report.json (valid against schemas/report.schema.json), said in JUnit and listed in the HTML report', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    const emulator = await useFastEmulator(emulatorConfig);
    await dropAnswers(emulator, 1);
    const run = await runDurablyIn(dir, emulator, { webhook: await webhookAddress() });
    expect(run.outcome).toMatchObject({ status: 'done', webhooks: { adopted: 1 } });
    const builder = reportOf(run.events);
    const report = builder.toJSON();
    expectValid('report', JSON.parse(JSON.stringify(report)), 'run.json');
    const items = report.steps[0]!.items;
    expect(items.map((i) => i.adopted).sort()).toEqual([false, false, true]);
    const adopted = items.find((i) => i.adopted)!;
    expect(adopted).toMatchObject({ status: 'done', attempts: 1 });
    expect(emulator.jobs().map((j) => j.request_id)).toContain(adopted.request_id);

    const junit = [...renderJUnit(builder)].join('');
    expect(junit.match(/adopted: true/g)).toHaveLength(1);
    expect(junit).toContain(`request_id: ${adopted.request_id}\nadopted: true`);

    const html = renderHtmlReport(buildTimeline(logged(run.events)));
    expect(html).toContain('data-total="adopted"><b>1</b>');
    expect(html).toMatch(/<section id="adopted"><h2>Adopted \(1\)<\/h2>/);
    expect(html.match(/<tr class="adopted">/g)).toHaveLength(1);
  });

  it('an item an earlier session left unknown and the next session adopts at open is adopted in that session\'s report, and the HTML report of both sessions lists it adopted, not failed', async () => {
    const dir = await useWorkspace({ 'workflow.yaml': TRANSCRIBE, ...clips(3) });
    // Half of each job pending: the lost job's delivery comes after its answer was judged lost (adoptWaitMs 0).
    const emulator = await useFastEmulator({ ...emulatorConfig, time_scale: 10, jobs: { duration_ms: 4000, queue_share: 0.5, scale_by_input: false } });
    await dropAnswers(emulator, 1);
    const first = await runDurablyIn(dir, emulator, { webhook: await webhookAddress(), adoptWaitMs: 0 });
    expect(first.outcome).toMatchObject({ counts: { done: 2, unknown: 1 } });
    expect(reportOf(first.events).toJSON().steps[0]!.items.map((i) => i.adopted)).toEqual([false, false, false]);
    const second = await runDurablyIn(dir, emulator);
    expect(second.outcome).toMatchObject({ status: 'done', counts: { done: 3, unknown: 0 } });
    const report = reportOf(second.events).toJSON();
    expectValid('report', JSON.parse(JSON.stringify(report)), 'run.json of the second session');
    const adopted = report.steps[0]!.items.filter((i) => i.adopted);
    expect(adopted).toHaveLength(1);
    expect(adopted[0]).toMatchObject({ status: 'done' });

    const model = buildTimeline([...logged(first.events), ...logged(second.events)]);
    expect(model.failures).toEqual([]);
    const html = renderHtmlReport(model);
    expect(html.match(/<tr class="adopted">/g)).toHaveLength(1);
    expect(html).toContain('No job failed, was skipped or left unknown.');
  });
});
