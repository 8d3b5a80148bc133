"use strict";globalThis.__deflowScriptCompiled?.();var __deflowImportMetaUrl=require("node:url").pathToFileURL(__filename).href;
var p=Object.defineProperty;var O=Object.getOwnPropertyDescriptor;var P=Object.getOwnPropertyNames;var j=Object.prototype.hasOwnProperty;var v=(e,i)=>{for(var t in i)p(e,t,{get:i[t],enumerable:!0})},b=(e,i,t,o)=>{if(i&&typeof i=="object"||typeof i=="function")for(let s of P(i))!j.call(e,s)&&s!==t&&p(e,s,{get:()=>i[s],enumerable:!(o=O(i,s))||o.enumerable});return e};var M=e=>b(p({},"__esModule",{value:!0}),e);var R={};v(R,{describeCommands:()=>a,runCompletion:()=>$});module.exports=M(R);var l=require("./chunk-MSHIPVLD.cjs"),m=require("./chunk-RQJOFJR2.cjs"),c=require("./chunk-P5M576A7.cjs");async function $(e,i,t){if(!l.b.includes(e))throw new m.e("E_USAGE_OPTION",`completion: unknown shell ${JSON.stringify(e)}; expected one of ${l.b.join(", ")}`,{details:{shell:e}});let o=a(i),s=e==="bash"?_(o):e==="zsh"?w(o):C(o);return t.stdout.write(s),m.a.ok}(0,c.a)($,"runCompletion");function a(e){return e.commands.map(i=>({name:i.name(),description:i.description(),options:[...i.options.filter(t=>!t.hidden).map(g),{long:"--help",short:"-h",takesValue:!1,choices:[],description:"display help for command"}],argChoices:i.registeredArguments[0]?.argChoices??(i.name()==="completion"?[...l.b]:[])}))}(0,c.a)(a,"describeCommands");function g(e){return{long:e.long??e.flags,short:e.short??null,takesValue:e.required,choices:e.argChoices??[],description:e.description}}(0,c.a)(g,"describeOption");function _(e){let i=e.map(t=>{let o=t.options.flatMap(n=>n.short?[n.long,n.short]:[n.long]),s=t.options.filter(n=>n.takesValue).map(n=>n.long),r=t.options.filter(n=>n.choices.length>0).map(n=>`        ${n.long}) COMPREPLY=( $(compgen -W "${n.choices.join(" ")}" -- "$cur") ); return ;;`);return[`    ${t.name})`,`      opts="${o.join(" ")}"`,`      valued=" ${s.join(" ")} "`,`      args="${t.argChoices.join(" ")}"`,r.length>0?`      case "$prev" in
${r.join(`
`)}
      esac`:"","      ;;"].filter(n=>n!=="").join(`
`)});return`# deflow completion for bash. Load it with: source <(deflow completion bash)
# (or save it as /etc/bash_completion.d/deflow). Generated from deflow's command definitions.
_deflow() {
  local cur prev opts valued args
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    COMPREPLY=( $(compgen -W "${e.map(t=>t.name).join(" ")} --help --version" -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${i.join(`
`)}
    *) return ;;
  esac
  if [[ "$valued" == *" $prev "* ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  elif [[ -n "$args" ]]; then
    COMPREPLY=( $(compgen -W "$args" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o filenames -o bashdefault -F _deflow deflow
`}(0,c.a)(_,"bashScript");function d(e){return e.replace(/[[\]:'\\]/g," ").replace(/\s+/g," ").trim()}(0,c.a)(d,"zshText");function w(e){let i=e.map(o=>`    '${o.name}:${d(o.description)}'`).join(`
`),t=e.map(o=>{let s=o.options.map(n=>{let f=n.takesValue?n.choices.length>0?`:value:(${n.choices.join(" ")})`:":value:_files":"",u=`[${d(n.description)}]${f}`;return n.short?`{${n.short},${n.long}}'${u}'`:`'${n.long}${u}'`}),r=o.argChoices.length>0?`'1:${o.name} argument:(${o.argChoices.join(" ")})'`:"'*:file:_files'";return`      ${o.name}) _arguments ${[...s,r].join(" ")} ;;`});return`#compdef deflow
# deflow completion for zsh. Load it with: source <(deflow completion zsh)
# (or save it as _deflow in a folder of $fpath). Generated from deflow's command definitions.
_deflow() {
  local -a commands
  commands=(
${i}
  )
  local curcontext="$curcontext" state line
  _arguments -C '(- *)'{-h,--help}'[display help]' '(- *)'{-V,--version}'[print the version]' '1:command:->command' '*::argument:->argument'
  case $state in
    command) _describe -t commands 'deflow command' commands ;;
    argument)
      case $line[1] in
${t.join(`
`)}
      esac ;;
  esac
}
if [[ "$funcstack[1]" = "_deflow" ]]; then _deflow "$@"; else compdef _deflow deflow; fi
`}(0,c.a)(w,"zshScript");function h(e){return e.replace(/\\/g,"\\\\").replace(/'/g,"\\'")}(0,c.a)(h,"fishText");function C(e){let i=e.map(o=>o.name).join(" "),t=["# deflow completion for fish. Load it with: deflow completion fish | source","# (or save it as ~/.config/fish/completions/deflow.fish). Generated from deflow's command definitions.","complete -c deflow -f",`complete -c deflow -n 'not __fish_seen_subcommand_from ${i}' -s h -l help -d 'display help'`,`complete -c deflow -n 'not __fish_seen_subcommand_from ${i}' -s V -l version -d 'print the version'`];for(let o of e){t.push(`complete -c deflow -n 'not __fish_seen_subcommand_from ${i}' -a ${o.name} -d '${h(o.description)}'`);let s=`-n '__fish_seen_subcommand_from ${o.name}'`;o.argChoices.length>0?t.push(`complete -c deflow ${s} -a '${o.argChoices.join(" ")}'`):t.push(`complete -c deflow ${s} -F`);for(let r of o.options){let n=r.short?` -s ${r.short.replace(/^-/,"")}`:"",f=r.takesValue?r.choices.length>0?` -r -f -a '${r.choices.join(" ")}'`:" -r -F":"";t.push(`complete -c deflow ${s}${n} -l ${r.long.replace(/^--/,"")}${f} -d '${h(r.description)}'`)}}return`${t.join(`
`)}
`}(0,c.a)(C,"fishScript");0&&(module.exports={describeCommands,runCompletion});
