/** The files `deflow init` writes: a commented starter workflow, `.env.example`, CI snippets. */
import { posix } from 'node:path';

/** Where the files of `deflow init DIR` point: each path is right from where it is read. */
export interface InitPaths {
  /** The workflow schema, relative to DIR (the workflow's folder). */
  readonly schema: string;
  /** The workflow, relative to the repository root (where CI runs). */
  readonly workflow: string;
  /** The workflow's output folder, relative to the repository root. */
  readonly output: string;
}

/** The starter workflow, its schema at `paths.schema`. */
export const starterWorkflow = (paths: InitPaths): string => STARTER_WORKFLOW.replace('$schema=node_modules/deflow/schemas/workflow.schema.json', `$schema=${paths.schema}`);

/** The GitHub Actions snippet for the workflow at `paths.workflow`. */
export const githubActionsSnippet = (paths: InitPaths): string =>
  GITHUB_ACTIONS_SNIPPET.replace('workflow: workflow.yaml', `workflow: ${paths.workflow}`)
    .replace('deflow gc workflow.yaml', `deflow gc ${paths.workflow}`)
    // The state folder: .deflow beside the workflow, from the repository root.
    .replaceAll('path: STATE_DIR', `path: ${posix.join(posix.dirname(paths.workflow), '.deflow')}`);

/** The GitLab CI snippet for the workflow at `paths.workflow`, its outputs in `paths.output`. */
export const gitlabCiSnippet = (paths: InitPaths): string =>
  GITLAB_CI_SNIPPET.replaceAll(' workflow.yaml', ` ${paths.workflow}`).replace('paths: [run.json, report.html, out/]', `paths: [run.json, report.html, ${paths.output}/]`);

const STARTER_WORKFLOW = `# yaml-language-server: $schema=node_modules/deflow/schemas/workflow.schema.json
# A starter deflow workflow: one image per prompt, then the text in each image read back (OCR).
#
#   deflow validate workflow.yaml              # check it (no request is sent)
#   deflow quote workflow.yaml                 # what it would cost, before anything is spent
#   deflow run workflow.yaml --emulator        # run it on the local emulator (no account)
#   deflow run workflow.yaml                   # run it for real (DEAPI_API_KEY, see .env.example)
#   deflow report workflow.yaml --html out/report.html   # the timeline of the last run
#
# The language is described in deflow's docs/workflow-language.md.
version: 1
name: starter
description: Generate an image per prompt and read the text in each one.

# Values a run can change: deflow run workflow.yaml --input size=768
inputs:
  size:
    type: integer
    default: 512
    description: Width and height of the images in pixels.

# Where \`save\` paths go (relative to this file). deflow init adds out/ to .gitignore.
output: out

# The run refuses to start when the quote's high end is above this (USD), and never spends past it.
budget:
  max_cost: 0.10

steps:
  # One job per item: the items below, or { glob: "photos/*.jpg" }, { file: prompts.csv }, ...
  generate:
    task: image.generate
    for_each:
      items:
        - A lighthouse at dusk, watercolour
        - A red fox in fresh snow, photograph
    with:
      prompt: \${{ item.value }}
      model: Flux1schnell
      width: \${{ inputs.size }}
      height: \${{ inputs.size }}
      steps: 4
      seed: 7
    save: image-\${{ item.index }}.png

  # A per-item chain: item k starts as soon as generate's item k is done (no barrier).
  read:
    task: image.ocr
    for_each: generate
    with:
      image: \${{ steps.generate.result_url }}   # the image flows in as a file
      model: Nanonets_Ocr_S_F16
      format: text
    save: image-\${{ item.index }}.txt
`;

export const ENV_EXAMPLE = `# Copy to .env (never commit it) or set these in your CI's secrets. deflow reads .env from the
# current folder, then from the workflow's folder; a variable already in the environment wins.
# Your deAPI key: https://deapi.ai (deflow never prints or logs it).
DEAPI_API_KEY=
# Another endpoint (the local emulator: deflow emulator --port 8787):
# DEAPI_BASE_URL=http://127.0.0.1:8787
`;

/** Lines `deflow init` makes sure `.gitignore` has. */
export const GITIGNORE_ENTRIES = ['.deflow/', 'out/', '.env'] as const;

const GITHUB_ACTIONS_SNIPPET = `# GitHub Actions: copy to .github/workflows/deflow.yml.
# Pull requests get the quote as a step summary; the nightly run does the work within a budget.
# The state folder (journal, result cache) is kept in the Actions cache: restored first, tidied
# (deflow gc) and saved after the run even when it ends red, under a key per run, so nothing is
# paid twice. Without DEAPI_API_KEY (a pull request from a fork) the job says so and passes.
# \`uses:\` names the repository that holds deflow's action.yml (replace OWNER/deflow@REF).
name: deflow
on:
  pull_request:
  schedule:
    - cron: "17 2 * * *"
  workflow_dispatch:
permissions:
  contents: read
jobs:
  deflow:
    runs-on: ubuntu-latest
    env:
      DEAPI_API_KEY: \${{ secrets.DEAPI_API_KEY }}
    steps:
      - uses: actions/checkout@v6
      - uses: actions/setup-node@v6
        with: { node-version: 24 }
      - id: key
        run: |
          if [ -n "$DEAPI_API_KEY" ]; then echo "present=true" >> "$GITHUB_OUTPUT"; exit 0; fi
          echo "present=false" >> "$GITHUB_OUTPUT"
          echo "deflow: no DEAPI_API_KEY here (a pull request from a fork gets no secrets): nothing was quoted or run." >> "$GITHUB_STEP_SUMMARY"
      - if: steps.key.outputs.present == 'true'
        uses: actions/cache/restore@v6
        with:
          path: STATE_DIR
          key: deflow-state-\${{ github.run_id }}-\${{ github.run_attempt }}
          restore-keys: deflow-state-
      - id: deflow
        if: steps.key.outputs.present == 'true'
        uses: OWNER/deflow@REF
        with:
          workflow: workflow.yaml
          command: \${{ github.event_name == 'pull_request' && 'quote' || 'run' }}
          max-cost: "0.10"
      - if: always() && steps.key.outputs.present == 'true'
        continue-on-error: true
        run: deflow gc workflow.yaml
      - if: always() && steps.key.outputs.present == 'true'
        uses: actions/cache/save@v6
        with:
          path: STATE_DIR
          key: deflow-state-\${{ github.run_id }}-\${{ github.run_attempt }}
      - if: always() && steps.deflow.outputs.report != ''
        uses: actions/upload-artifact@v7
        with:
          name: deflow-report
          path: \${{ steps.deflow.outputs.report }}
`;

const GITLAB_CI_SNIPPET = `# GitLab CI: merge into .gitlab-ci.yml. Set DEAPI_API_KEY as a masked CI/CD variable.
# DEFLOW_PACKAGE: what npm installs (the deflow package, or a git URL or tarball of it).
variables:
  DEFLOW_PACKAGE: deflow
deflow-quote:
  image: node:20
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
  script:
    - npm install --no-save "$DEFLOW_PACKAGE"
    - npx deflow validate workflow.yaml
    - npx deflow quote workflow.yaml --max-cost 0.10 --format markdown | tee quote.md
  artifacts:
    paths: [quote.md]
deflow-nightly:
  image: node:20
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
  script:
    - npm install --no-save "$DEFLOW_PACKAGE"
    - npx deflow run workflow.yaml --max-cost 0.10 --junit junit.xml --report run.json --html report.html
  artifacts:
    when: always
    paths: [run.json, report.html, out/]
    reports:
      junit: junit.xml
`;
