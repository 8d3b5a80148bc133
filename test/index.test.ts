import { describe, expect, it } from 'vitest';
import * as deflow from '../src/index.js';

describe('the public library surface', () => {
  it('exports the client, its errors, the emulator, the workflow loader and the quote by name', () => {
    for (const name of [
      'DeapiClient', 'RateGovernor', 'ApiError', 'AuthError', 'DailyLimitError', 'ValidationError', 'NetworkError',
      'startEmulator', 'validateWorkflow', 'loadWorkflow', 'expandGraph', 'quoteRun', 'createVirtualClock',
      'DeflowError', 'TASKS', 'MODEL_CATALOGUE', 'RunReportBuilder', 'runWorkflow', 'runDurably', 'openDurableRun',
    ]) {
      expect(typeof (deflow as Record<string, unknown>)[name], name).not.toBe('undefined');
    }
  });

  it('gives every client error a stable E_ code', () => {
    const error = new deflow.DailyLimitError({ status: 429, method: 'POST', path: '/api/v2/audio/speech', serviceMessage: 'Too Many Attempts.' });
    expect(error.code).toMatch(/^E_API_DAILY_LIMIT/);
    expect(error).toBeInstanceOf(deflow.DeflowError);
  });
});
