import type { ModelRegistry } from '../research/model-registry';
import type { GroundingContext } from '../research/grounding';
import type { DocNarrator } from './file-docs';
import type { StaticDoc } from './static-doc';

/** Source sent to the model: enough for a purpose paragraph, bounded so a big file cannot blow the context. */
const MAX_SOURCE_CHARS = 12_000;
const MAX_OUTPUT_TOKENS = 400;

const SYSTEM = [
  'You write the opening paragraph of the documentation of one source file.',
  'Say what the file is for, its main exports and how it is used, in 2 to 5 plain sentences.',
  'Use only what the source and the facts show; no headings, no lists, no speculation.',
].join(' ');

/**
 * A DocNarrator over the research model registry: when the user configures a language model for
 * docs (`docs.model`), it writes the narrative part of each file's documentation. Extractive models
 * (the built-in grounded one) are not used: static docs already are extractive.
 */
export class RegistryNarrator implements DocNarrator {
  constructor(private readonly models: ModelRegistry, readonly id: string) {}

  async narrate(input: { path: string; text: string; facts: StaticDoc }, signal: AbortSignal): Promise<string | null> {
    const { info, provider } = await this.models.resolve(this.id);
    if (info.kind !== 'llm') return null;
    const source = input.text.length > MAX_SOURCE_CHARS ? `${input.text.slice(0, MAX_SOURCE_CHARS)}\n…(cut)` : input.text;
    const facts = [
      `File: ${input.path} (${input.facts.language ?? 'text'}, ${input.facts.lines} lines)`,
      `Exports: ${input.facts.exports.map((e) => e.name).join(', ') || 'none'}`,
      `Imports: ${input.facts.imports.map((i) => i.target ?? i.specifier).join(', ') || 'none'}`,
    ].join('\n');
    const context: GroundingContext = {
      question: `What is ${input.path} for?`,
      files: [{
        repoId: '', repoName: '', path: input.path, language: input.facts.language, lines: input.facts.lines,
        description: input.facts.description, excerpt: { startLine: 1, endLine: input.facts.lines, text: source }, symbols: [],
      }],
      edges: [],
    };
    let text = '';
    for await (const event of provider.chat({
      model: info.id,
      messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: `${facts}\n\n\`\`\`\n${source}\n\`\`\`` }],
      context, maxOutputTokens: MAX_OUTPUT_TOKENS, signal,
    })) {
      if (event.type === 'text') text += event.text;
    }
    return text.trim() || null;
  }
}
