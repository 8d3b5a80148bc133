// Typed linting (typescript-eslint with the project's tsconfig): the rules that catch real
// bugs in async code and types, without style rules that a formatter would own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { boundaryConfigs } from './eslint.boundaries.js';

/**
 * Ways src may not spell a thing that has one module of its own (STYLE.md, "One way to do each
 * thing"). Each is an esquery selector with the message a newcomer sees.
 */
const HOUSE_SYNTAX = [
  {
    // `(error as { code?: string }).code === 'E_…'`: compare codes with common's typed guard.
    selector: "BinaryExpression[operator=/^[!=]==?$/][right.value=/^E_[A-Z]/] > MemberExpression.left[property.name='code'] > TSAsExpression.object",
    message: "Compare an error's code with isDeflowError(error, 'E_…') (src/common/deflow-error.ts), not through a cast.",
  },
];

/** Hand-rounded money (`Math.round(usd * 1e6) / 1e6`): src/common/money.ts alone converts USD and micro-dollars. */
const MONEY_SYNTAX = [
  {
    selector: 'BinaryExpression[operator=/^[*\\/]$/] > Literal[value=1000000]',
    message: 'Round, sum and convert USD with src/common/money.ts (toMicros, toUsd, roundUsd, UsdTally), not by hand with 1e6.',
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'dist-check/', 'dist-bench/', 'node_modules/', '**/fixtures/**', 'workflows/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Rejecting with an AbortSignal's reason and rethrowing a caught `unknown` are intended.
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // Parsed JSON and YAML are `unknown`/`any` by nature; narrowing is checked where it matters.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
      '@typescript-eslint/require-await': 'off',
      'no-control-regex': 'off',
    },
  },
  ...boundaryConfigs,
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...HOUSE_SYNTAX, ...MONEY_SYNTAX] },
  },
  {
    files: ['src/common/money.ts'],
    rules: { 'no-restricted-syntax': ['error', ...HOUSE_SYNTAX] },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
