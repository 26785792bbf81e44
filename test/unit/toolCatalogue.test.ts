// The one tool catalogue against what VS Code reads: package.json's languageModelTools must offer
// exactly the catalogue's `lm` tools, with its names, descriptions and input schemas.

import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inputSchemaOf, TOOLS, toolsOf } from '../../src/server/toolCatalogue';

interface ContributedTool {
  name: string;
  modelDescription: string;
  inputSchema: unknown;
}

const packageJson = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { languageModelTools: ContributedTool[] };
};

describe('tool catalogue', () => {
  it("package.json's languageModelTools are the catalogue's lm tools: names, descriptions and input schemas", () => {
    const contributed = packageJson.contributes.languageModelTools;
    assert.deepEqual(
      contributed.map((t) => t.name),
      toolsOf('lm').map((t) => t.face.name),
    );
    for (const tool of toolsOf('lm')) {
      const entry = contributed.find((t) => t.name === tool.face.name)!;
      assert.equal(entry.modelDescription, tool.face.description, tool.face.name);
      assert.deepEqual(entry.inputSchema, inputSchemaOf(tool, 'lm'), tool.face.name);
    }
  });

  it('keeps each public name once, and every offered property is defined', () => {
    for (const surface of ['mcp', 'lm'] as const) {
      const names = toolsOf(surface).map((t) => t.face.name);
      assert.equal(new Set(names).size, names.length, `${surface} names are unique`);
      for (const tool of toolsOf(surface)) {
        for (const name of [...tool.face.properties, ...(tool.face.required ?? [])])
          assert.ok(tool.input[name], `${tool.face.name}: property ${name} is defined`);
      }
    }
    // The shared tools carry both public names.
    const search = TOOLS.find((t) => t.id === 'search')!;
    assert.equal(search.mcp?.name, 'session_search');
    assert.equal(search.lm?.name, 'baton_search_sessions');
    const inherited = TOOLS.find((t) => t.id === 'inherited')!;
    assert.equal(inherited.mcp?.name, 'inherited_context');
    assert.equal(inherited.lm?.name, 'baton_get_inherited_context');
  });
});
