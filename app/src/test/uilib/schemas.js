'use strict';
// Upstream's models as JSON Schema, from @openshift-assisted/types' assisted-installer-service.d.ts: the UI team's
// TypeScript rendering of assisted-service's swagger (their sw2dts script), in camelCase as the ui-lib's client
// hands responses to the UI. The swagger itself is in no npm or Maven package; this is the swagger as the UI sees it.
//
// sw2dts keeps the swagger's formats and patterns only as line comments (`id: string; // uuid`); they are turned
// into JSDoc tags first (@format uuid/date-time/ipv4, @pattern, @asType integer for int32/int64) so that the
// schema checks them too. Kept strict: required properties, types, enums, formats, patterns. Additional
// properties are allowed, as upstream's swagger does not forbid them; a second, closed schema of every model
// reports them as notes (a misspelt field name shows up there).
const fs = require('fs');
const path = require('path');

const FORMATS = new Set(['uuid', 'date-time', 'ipv4']);
const INTEGERS = new Set(['int32', 'int64']);

/** The d.ts with its line-comment formats and patterns as JSDoc tags. */
function annotate(source) {
  const out = [];
  for (const line of source.split('\n')) {
    const m = /^(\s*)(.*;) \/\/ (.+)$/.exec(line);
    if (m) {
      const [, indent, decl, note] = m;
      let tag = null;
      if (FORMATS.has(note)) {
        tag = `@format ${note}`;
      } else if (INTEGERS.has(note)) {
        tag = '@asType integer';
      } else if (note.startsWith('^') && !note.includes('*/')) {
        tag = `@pattern ${note}`;
      }
      if (tag && !/string\s*\/\*/.test(decl)) {
        out.push(`${indent}/** ${tag} */`);
        out.push(`${indent}${decl}`);
        continue;
      }
    }
    out.push(line);
  }
  return out.join('\n');
}

/**
 * Every exported type of the d.ts as JSON Schema definitions, twice: open (additional properties allowed) and
 * closed (none allowed), made by `tsj` (the ts-json-schema-generator module). `work` is a scratch directory for
 * the annotated copy.
 */
function generate(tsj, typesDts, work) {
  fs.mkdirSync(work, { recursive: true });
  const file = path.join(work, 'assisted-installer-service.d.ts');
  fs.writeFileSync(file, annotate(fs.readFileSync(typesDts, 'utf8')));
  fs.writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, lib: ['es2020'] },
    files: ['assisted-installer-service.d.ts'],
  }));
  const make = (additionalProperties) => tsj.createGenerator({
    path: file,
    tsconfig: path.join(work, 'tsconfig.json'),
    type: '*',
    expose: 'export',
    topRef: true,
    jsDoc: 'extended',
    skipTypeCheck: true,
    additionalProperties,
  }).createSchema('*').definitions;
  return { open: make(true), closed: make(false) };
}

module.exports = { annotate, generate };
