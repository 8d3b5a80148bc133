import { describe, expect, it } from 'vitest';
import { checkFit, fitAndCheck, fitLine, planFitPoints, predictPrice } from '../../../src/engine/quote/price-fit.js';
import { sizeVariableOf } from '../../../src/engine/quote/price-classes.js';
import { getTask, TASK_IDS } from '../../../src/service/tasks.js';

describe('price fit', () => {
  it('fits the least-squares line through points on a line', () => {
    const fit = fitLine([
      { x: 10, price: 0.0012 },
      { x: 100, price: 0.0039 },
      { x: 600, price: 0.0189 },
    ]);
    expect(fit.slope).toBeCloseTo(0.00003, 12);
    expect(fit.intercept).toBeCloseTo(0.0009, 12);
    expect(predictPrice(fit, 300)).toBeCloseTo(0.0099, 12);
  });

  it('accepts a held-out quote within 0.5 % or one micro-dollar, and reports the error', () => {
    const fit = { slope: 0.00001, intercept: 0 };
    expect(checkFit(fit, { x: 100, price: 0.001004 })).toMatchObject({ accepted: true, predicted: 0.001, error: -0.000004, error_pct: 0.3984 });
    expect(checkFit(fit, { x: 1, price: 0.000011 })).toMatchObject({ accepted: true });
    expect(checkFit(fit, { x: 100, price: 0.00102 }).accepted).toBe(false);
  });

  it('refuses a step function: the line misses its own points or the held-out one', () => {
    const band = (s: number) => (s <= 60 ? 0.015 : s <= 120 ? 0.0225 : s <= 180 ? 0.03 : s <= 300 ? 0.045 : 0.0825);
    const plan = planFitPoints([30, 70, 100, 130, 170, 200, 250, 290, 350, 400, 500, 590])!;
    const outcome = fitAndCheck(
      plan.fitOn.map((x) => ({ x, price: band(x) })),
      { x: plan.heldOut, price: band(plan.heldOut) },
    );
    expect(outcome.accepted).toBe(false);
    expect(outcome.refusal).toMatch(/not linear/);
  });

  it('plans min, median and max to fit on, and a distinct lower-quartile value to hold out', () => {
    expect(planFitPoints([5, 1, 3, 2, 4, 9, 7])).toEqual({ fitOn: [1, 4, 9], heldOut: 3 });
    expect(planFitPoints([1, 2, 3, 4])).toEqual({ fitOn: [1, 2, 4], heldOut: 3 });
    expect(planFitPoints([1, 2, 3])).toBeUndefined();
  });
});

describe('price classes', () => {
  it('uses size variables the price twins take in place of the field they replace', () => {
    for (const id of TASK_IDS) {
      const variable = sizeVariableOf(id);
      if (!variable) continue;
      const task = getTask(id);
      const names = [...task.fields, ...task.priceFields].map((f) => f.name);
      if (variable.via === 'placeholder-text') {
        // The twin takes only the text: a pending one is quoted with a neutral text of that length.
        expect(names, id).toContain(variable.replaces);
        continue;
      }
      expect(names, id).toContain(variable.name);
      if (variable.replaces) {
        const group = task.priceExactlyOneOf?.find((g) => g.includes(variable.replaces!));
        expect(group, `${id}: ${variable.replaces} and ${variable.name} are alternatives`).toContain(variable.name);
      }
    }
  });
});
