"use strict";globalThis.__deflowScriptCompiled?.();var __deflowImportMetaUrl=require("node:url").pathToFileURL(__filename).href;
var m=Object.defineProperty;var A=Object.getOwnPropertyDescriptor;var I=Object.getOwnPropertyNames;var b=Object.prototype.hasOwnProperty;var x=(e,t)=>{for(var r in t)m(e,r,{get:t[r],enumerable:!0})},P=(e,t,r,i)=>{if(t&&typeof t=="object"||typeof t=="function")for(let n of I(t))!b.call(e,n)&&n!==r&&m(e,n,{get:()=>t[n],enumerable:!(i=A(t,n))||i.enumerable});return e};var j=e=>P(m({},"__esModule",{value:!0}),e);var U={};x(U,{runInit:()=>k});module.exports=j(U);var f=require("./chunk-RQJOFJR2.cjs"),w=require("./chunk-P5M576A7.cjs"),d=require("node:fs/promises"),o=require("node:path"),g=require("node:path"),T=(0,w.a)(e=>q.replace("$schema=node_modules/deflow/schemas/workflow.schema.json",`$schema=${e.schema}`),"starterWorkflow"),D=(0,w.a)(e=>O.replace("workflow: workflow.yaml",`workflow: ${e.workflow}`).replace("deflow gc workflow.yaml",`deflow gc ${e.workflow}`).replaceAll("path: STATE_DIR",`path: ${g.posix.join(g.posix.dirname(e.workflow),".deflow")}`),"githubActionsSnippet"),S=(0,w.a)(e=>R.replaceAll(" workflow.yaml",` ${e.workflow}`).replace("paths: [run.json, report.html, out/]",`paths: [run.json, report.html, ${e.output}/]`),"gitlabCiSnippet"),q=`# yaml-language-server: $schema=node_modules/deflow/schemas/workflow.schema.json
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
`,C=`# Copy to .env (never commit it) or set these in your CI's secrets. deflow reads .env from the
# current folder, then from the workflow's folder; a variable already in the environment wins.
# Your deAPI key: https://deapi.ai (deflow never prints or logs it).
DEAPI_API_KEY=
# Another endpoint (the local emulator: deflow emulator --port 8787):
# DEAPI_BASE_URL=http://127.0.0.1:8787
`,y=[".deflow/","out/",".env"],O=`# GitHub Actions: copy to .github/workflows/deflow.yml.
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
`,R=`# GitLab CI: merge into .gitlab-ci.yml. Set DEAPI_API_KEY as a masked CI/CD variable.
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
`,p=[["workflow.yaml",T],[".env.example",()=>C],["ci/github-actions.yml",D],["ci/gitlab-ci.yml",S]],c="node_modules/deflow/schemas/workflow.schema.json";async function k(e,t){let r=(0,o.resolve)(t.cwd,e),i=[];for(let[a]of p)await h((0,o.join)(r,a))&&i.push(a);if(i.length>0){let a=(0,o.relative)(t.cwd,r)||".";throw new f.e("E_INIT_EXISTS",`${a}: ${i.join(", ")} already exist${i.length===1?"s":""}; deflow init writes nothing over existing files (remove them or pick another folder)`,{details:{dir:r,existing:i}})}let n=await _(r,t.cwd),l;try{for(let[a,s]of p)await(0,d.mkdir)((0,o.dirname)((0,o.join)(r,a)),{recursive:!0}),await(0,d.writeFile)((0,o.join)(r,a),s(n),{flag:"wx"});l=await E((0,o.join)(r,".gitignore"))}catch(a){let{code:s,path:v}=a;throw new f.e("E_INIT_WRITE",`${v??r}: cannot write the starter files (${s??String(a)})`,{cause:a,details:{dir:r}})}let u=(0,w.a)(a=>(0,o.relative)(t.cwd,(0,o.join)(r,a))||a,"at");return t.stdout.write([...p.map(([a])=>`wrote ${u(a)}`),l.length>0?`added ${l.join(", ")} to ${u(".gitignore")}`:`${u(".gitignore")} already ignores ${y.join(", ")}`,"","next:",`  deflow validate ${u("workflow.yaml")}`,`  deflow run ${u("workflow.yaml")} --emulator     # on the local emulator, no account needed`,`  copy ${u("ci/github-actions.yml")} to .github/workflows/ (or merge ${u("ci/gitlab-ci.yml")} into .gitlab-ci.yml)`,""].join(`
`)),f.a.ok}(0,w.a)(k,"runInit");async function _(e,t){let r=(0,w.a)(s=>s.split(o.sep).join("/"),"posix"),i=(0,o.join)(t,c),n=t,l=!1,u=!1;for(let s=e;!l&&await h((0,o.join)(s,c))&&([i,l]=[(0,o.join)(s,c),!0]),!u&&await h((0,o.join)(s,".git"))&&([n,u]=[s,!0]),!(l&&u||(0,o.dirname)(s)===s);s=(0,o.dirname)(s));let a=(0,w.a)(s=>r((0,o.relative)(n,(0,o.join)(e,s)))||s,"fromRepository");return{schema:r((0,o.relative)(e,i)),workflow:a("workflow.yaml"),output:a("out")}}(0,w.a)(_,"initPaths");async function E(e){let t=await $(e)??"",r=new Set(t.split(/\r?\n/).map(l=>l.trim())),i=y.filter(l=>!r.has(l)&&!r.has(l.replace(/\/$/,"")));if(i.length===0)return[];let n=t===""||t.endsWith(`
`)?"":`
`;return await(0,d.writeFile)(e,`${t}${n}# deflow: state folder, outputs, secrets
${i.join(`
`)}
`),i}(0,w.a)(E,"addGitignoreEntries");async function h(e){try{return await(0,d.lstat)(e),!0}catch(t){return t.code!=="ENOENT"}}(0,w.a)(h,"exists");async function $(e){try{return await(0,d.readFile)(e,"utf8")}catch(t){if(t.code==="ENOENT")return;throw t}}(0,w.a)($,"readText");0&&(module.exports={runInit});
