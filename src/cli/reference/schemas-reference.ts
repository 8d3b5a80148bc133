/**
 * docs/reference/schemas.md, generated from the JSON Schemas in schemas/: for each schema, every
 * field as a dotted path with its type, whether it is required and its description. Shared
 * definitions (`$ref`) are listed once under the schema, and alternatives (`oneOf`: the NDJSON
 * event types, the shapes of `status --json`) each get a section. The workflow schema's
 * per-task `with` objects are the task reference of docs/workflow-language.md.
 */
import { anchor, cell, code, generatedHeader, table } from './markdown.js';

type Schema = Readonly<Record<string, unknown>>;

/** One schema file: its name in schemas/ and its parsed JSON. */
export interface SchemaFile {
  readonly name: string;
  readonly schema: Schema;
}

/** The JSON Schemas page. */
export function renderSchemasReference(files: readonly SchemaFile[]): string {
  const lines = [
    ...generatedHeader('JSON Schemas: every field', 'the schemas in `schemas/`'),
    "Every JSON output of deflow has a `format_version` and a JSON Schema (draft-07) in `schemas/`; the input files (workflows, the emulator's config) have one too. How they are versioned: [ci.md](../ci.md#machine-readable-output-the-schemas). Paths are dotted; `[]` marks the items of an array; a type in *italics* is a definition listed below its schema.",
    '',
    ...table(['schema', 'title'], files.map((f) => [`[${code(f.name)}](#${anchor(f.name)})`, cell(String(f.schema.title ?? ''))])),
    '',
  ];
  for (const file of files) lines.push(...renderSchema(file));
  return `${lines.join('\n').trimEnd()}\n`;
}

function renderSchema({ name, schema }: SchemaFile): string[] {
  const definitions = (schema.definitions ?? schema.$defs ?? {}) as Record<string, Schema>;
  const skip = (defName: string): boolean => name === 'workflow.schema.json' && defName.startsWith('with.');
  const lines = [`## ${name}`, '', `[\`schemas/${name}\`](../../schemas/${name})${schema.description ? `: ${String(schema.description)}` : ''}`, ''];
  lines.push(...renderShape(schema, `${name}`, skip));
  for (const [defName, def] of Object.entries(definitions)) {
    if (skip(defName)) continue;
    lines.push(`### ${name}: ${defName}`, '', ...(def.description ? [String(def.description), ''] : []), ...renderShape(def, `${name}: ${defName}`, skip));
  }
  if (name === 'workflow.schema.json') lines.push('The `with` object of each task: [the task reference](../workflow-language.md#task-reference).', '');
  return lines;
}

/** A shape: its fields, or its alternatives, or just its type. */
function renderShape(schema: Schema, context: string, skip: (def: string) => boolean): string[] {
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (!schema.properties && alternatives && alternatives.every((a) => a.properties || a.$ref)) {
    return alternatives.flatMap((alt, i) => {
      const title = alternativeTitle(alt, i);
      const body = alt.properties ? fieldTable(alt, skip) : [`${typeOf(alt, skip)}.`, ''];
      return [`#### ${context}: ${title}`, '', ...(alt.description ? [String(alt.description), ''] : []), ...body];
    });
  }
  if (schema.properties || (schema.items as Schema | undefined)?.properties) return fieldTable(schema, skip);
  return [`Type: ${typeOf(schema, skip)}.`, ''];
}

function alternativeTitle(alt: Schema, index: number): string {
  const typeProp = (alt.properties as Record<string, Schema> | undefined)?.type;
  if (typeProp && typeProp.const !== undefined) return `type ${String(typeProp.const)}`;
  if (typeof alt.title === 'string') return alt.title;
  if (typeof alt.$ref === 'string') return refName(alt.$ref);
  return `shape ${index + 1}`;
}

function fieldTable(schema: Schema, skip: (def: string) => boolean): string[] {
  const rows: string[][] = [];
  collect(schema, '', rows, skip, 0);
  return [...table(['field', 'type', 'required', 'description'], rows), ''];
}

function collect(schema: Schema, prefix: string, rows: string[][], skip: (def: string) => boolean, depth: number): void {
  const target = schema.type === 'array' && (schema.items as Schema | undefined)?.properties ? (schema.items as Schema) : schema;
  const at = target === schema ? prefix : `${prefix}[]`;
  const properties = (target.properties ?? {}) as Record<string, Schema>;
  const required = new Set((target.required ?? []) as string[]);
  for (const [key, value] of Object.entries(properties)) {
    const path = at === '' ? key : `${at}.${key}`;
    rows.push([code(path), cell(typeOf(value, skip)), required.has(key) ? 'yes' : 'no', cell(describe(value))]);
    const inner = value.type === 'array' ? (value.items as Schema | undefined) : value;
    if (depth < 6 && inner?.properties) collect(value, path, rows, skip, depth + 1);
  }
  const extra = target.additionalProperties;
  if (extra && typeof extra === 'object') {
    const path = at === '' ? '<name>' : `${at}.<name>`;
    rows.push([code(path), cell(typeOf(extra as Schema, skip)), 'no', cell(describe(extra as Schema))]);
    if (depth < 6 && (extra as Schema).properties) collect(extra as Schema, path, rows, skip, depth + 1);
  }
}

function describe(schema: Schema): string {
  const parts: string[] = [];
  if (typeof schema.description === 'string') parts.push(schema.description);
  if (schema.default !== undefined) parts.push(`Default ${code(JSON.stringify(schema.default))}.`);
  return parts.join(' ');
}

function refName(ref: string): string {
  return ref.replace(/^#\/(definitions|\$defs)\//, '');
}

/** A short type: `string`, `"done"`, `integer ≥ 0`, `array of string`, *definition*. */
function typeOf(schema: Schema, skip: (def: string) => boolean): string {
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    return skip(name) ? `\`with\` of ${name.slice('with.'.length)}` : `*${name}*`;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(', ');
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives) return alternatives.map((a) => typeOf(a, skip)).join(' or ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  const described = types.map((t) => {
    if (t === 'array') {
      const items = schema.items as Schema | undefined;
      return items ? `array of ${items.properties ? 'object' : typeOf(items, skip)}` : 'array';
    }
    if (t === 'object' && !schema.properties && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      return `map of ${typeOf(schema.additionalProperties as Schema, skip)}`;
    }
    return t;
  });
  const bounds = [
    schema.minimum !== undefined ? `≥ ${String(schema.minimum)}` : '',
    schema.exclusiveMinimum !== undefined ? `> ${String(schema.exclusiveMinimum)}` : '',
    schema.maximum !== undefined ? `≤ ${String(schema.maximum)}` : '',
    schema.pattern !== undefined ? `matching ${code(String(schema.pattern))}` : '',
    schema.format !== undefined ? `(${String(schema.format)})` : '',
  ].filter(Boolean);
  return [described.join(' or ') || (schema.allOf ? 'see its parts' : 'any'), ...bounds].join(' ');
}
