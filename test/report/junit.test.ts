import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJUnit, writeJUnit } from '../../src/report/ci/junit.js';
import { RunReportBuilder } from '../../src/report/files/run-report.js';
import { escapeXmlAttribute, escapeXmlText } from '../../src/report/ci/xml-escape.js';
import { failed, node, runFinished, runStarted, sampleRun, T0 } from './run-events.js';

function sampleXml(): string {
  const builder = new RunReportBuilder();
  for (const event of sampleRun()) builder.handle(event);
  return [...renderJUnit(builder)].join('');
}

function count(xml: string, pattern: RegExp): number {
  return xml.match(pattern)?.length ?? 0;
}

describe('renderJUnit', () => {
  it('writes one testsuite per step and one testcase per item', () => {
    const xml = sampleXml();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="Podcast" tests="6" failures="3" errors="0" skipped="0" time="2.500">\n')).toBe(true);
    expect(count(xml, /<testsuite /g)).toBe(2);
    expect(count(xml, /<\/testsuite>/g)).toBe(2);
    expect(count(xml, /<testcase /g)).toBe(6);
    expect(xml).toContain('<testsuite name="transcribe" tests="3" failures="1" errors="0" skipped="0" time="1.180">');
    expect(xml).toContain('<testsuite name="speak" tests="3" failures="2" errors="0" skipped="0" time="1.100">');
    expect(xml.trimEnd().endsWith('</testsuites>')).toBe(true);
  });

  it('names cases step[index] key with the workflow file as classname', () => {
    const xml = sampleXml();
    const names = [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"/g)].map((m) => `${m[1]} | ${m[2]}`);
    expect(names).toEqual([
      'podcast.yaml | transcribe[0] a.mp3',
      'podcast.yaml | transcribe[1] b.mp3',
      'podcast.yaml | transcribe[2] c.mp3',
      'podcast.yaml | speak[0] a.mp3',
      'podcast.yaml | speak[1] b.mp3',
      'podcast.yaml | speak[2] c.mp3',
    ]);
  });

  it('marks failed and unknown items, and items an upstream failure blocked, as failures; request ids in system-out', () => {
    const xml = sampleXml();
    expect(count(xml, /<failure /g)).toBe(3);
    expect(xml).toContain(
      '<failure type="E_JOB_FAILED" message="the job failed">code: E_JOB_FAILED\nmessage: the job failed\njob_error_code: WORKER_ERROR\nreason: PROCESSING_FAILED\nretryable: false\nattempts: 1</failure>',
    );
    expect(xml).toContain('<failure type="E_JOB_UNKNOWN" message="outcome unknown: connection reset while submitting">');
    expect(count(xml, /<skipped /g)).toBe(0);
    expect(xml).toContain('<failure type="E_ITEM_BLOCKED" message="skipped: upstream transcribe[1] failed">skipped: upstream transcribe[1] failed</failure>');
    expect(xml).toContain('<system-out>request_id: req-t1</system-out>');
    expect(xml).toContain('<system-out>request_id: req-s0b\noutput: out/speak/a.mp3</system-out>');
  });

  it('escapes markup, quotes and control characters so the file stays well-formed', () => {
    const builder = new RunReportBuilder();
    builder.handle(runStarted([{ id: 's<1>', task: 'text-to-image', items: 1 }]));
    builder.handle(failed(node('s<1>', 0, 'a&b"c\'.txt'), T0 + 1, { code: 'E_JOB_FAILED', message: 'bad <tag> & "q"\u0001\u001b[31m\nnext' }));
    builder.handle(runFinished({ total: 1, done: 0, cached: 0, failed: 1, skipped: 0, unknown: 0, pending: 0 }, { ts: T0 + 2 }));
    const xml = [...renderJUnit(builder)].join('');
    expect(xml).toContain('<testsuite name="s&lt;1&gt;"');
    expect(xml).toContain('name="s&lt;1&gt;[0] a&amp;b&quot;c&apos;.txt"');
    expect(xml).toContain('message="bad &lt;tag&gt; &amp; &quot;q&quot;\uFFFD\uFFFD[31m&#10;next"');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  });

  it('is written to disk even when the run failed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'deflow-junit-'));
    try {
      const builder = new RunReportBuilder();
      for (const event of sampleRun()) builder.handle(event);
      await writeJUnit(join(dir, 'report.xml'), builder);
      expect(await readFile(join(dir, 'report.xml'), 'utf8')).toBe(sampleXml());
      expect(await readdir(dir)).toEqual(['report.xml']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('XML escaping', () => {
  it('escapes text and attributes', () => {
    expect(escapeXmlText('a<b>&c\t\n')).toBe('a&lt;b&gt;&amp;c\t\n');
    expect(escapeXmlAttribute('"\'\t\r\n')).toBe('&quot;&apos;&#9;&#13;&#10;');
    expect(escapeXmlText('\u0000x\uFFFEy\uD800z😀')).toBe('\uFFFDx\uFFFDy\uFFFDz😀');
  });
});
