// The hook command (dist/hook.js) starts on every harness event, so what it loads is paid every
// time. esbuild turns each `import * as x from 'node:x'` into `__toESM(require('node:x'))` at the
// top of the bundle: every built-in is loaded at start-up, whether the event uses it or not (HTTP
// and its sockets when the endpoint is down, crypto on events that never write a state file), and
// copied property by property once per importing module. This rewrites those into one lazy
// handle per built-in, required on first use (docs/harnesses.md, "What a hook costs").

/** The helper the rewritten bundle uses: one require per built-in, on the first property read. */
const HELPER = `var __builtinCache = /* @__PURE__ */ new Map();
var __lazyBuiltin = (name) => new Proxy({}, {
  get(_, key) {
    let mod = __builtinCache.get(name);
    if (mod === undefined) __builtinCache.set(name, (mod = require(name)));
    return key === "default" ? mod : mod[key];
  }
});
`;

const IMPORT = /__toESM\(require\("(node:[\w/]+)"\)\)/g;

/** The bundle's text with every built-in import made lazy; unchanged when it imports none. */
export function lazyBuiltins(text) {
  if (!IMPORT.test(text)) return text;
  const rewritten = text.replace(IMPORT, (_, name) => `__lazyBuiltin(${JSON.stringify(name)})`);
  // After the bundle's "use strict" (and a shebang, if any), before any module runs.
  const at = rewritten.indexOf('"use strict";\n');
  const cut = at >= 0 ? at + '"use strict";\n'.length : 0;
  return rewritten.slice(0, cut) + HELPER + rewritten.slice(cut);
}
