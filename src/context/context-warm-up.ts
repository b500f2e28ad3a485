import type { IAgentRuntime, Memory, ServiceTypeName } from '@elizaos/core';
import type { EloBookService } from '../elo/elo-book-service';
import type { ScanOutcomeService } from '../scan/scan-outcome-service';
import { ELO_BOOK_SERVICE, PLUGIN_SERVICES, SCAN_OUTCOME_SERVICE } from '../shared/service-names';
import { EVERYDAY_SENTENCES } from '../shared/everyday-sentences';
import { inTurns, yieldToEventLoop } from '../shared/event-loop';
import { errorText } from '../shared/error-text';
import { assembleContext } from './context-assembly';

/**
 * Contexts assembled after start, for made-up messages, before any prompt asks: a process's first
 * prompts ran the three providers' code cold (not yet compiled by the engine), 5–15 ms for
 * SCAN_LESSONS on the 1M database of `bench/scale.ts` against 0.6 ms once warm.
 */
export const CONTEXT_WARM_UP_CALLS = 60;
/** Lessons whose text serves as a made-up message (the rest are everyday sentences, related to nothing). */
const LESSON_MESSAGES = 10;

const warmUps = new WeakMap<IAgentRuntime, Promise<number>>();

/**
 * Starts the warm-up in the background once every service of the plugin has started, the stored
 * lessons are in the index and the ELO book has read ahead the ratings they need. The messages
 * have no id: nothing is cached for them, no use is announced, nothing is written. Stops when the
 * ELO book stops; a failure is logged and changes nothing but the speed of the first prompts.
 */
export function warmUpContextInBackground(runtime: IAgentRuntime, calls = CONTEXT_WARM_UP_CALLS): void {
  const stopping = () => runtime.getService<EloBookService>(ELO_BOOK_SERVICE)?.isStopping ?? true;
  const warmUp = inTurns(async () => {
    // Not `pluginStarted`: this runs from `init`, before the runtime registers the services, when
    // it would take every one as never registered. A service that fails rejects its load promise.
    await Promise.all(PLUGIN_SERVICES.map((type) => runtime.getServiceLoadPromise(type as ServiceTypeName)));
    const scan = runtime.getService<ScanOutcomeService>(SCAN_OUTCOME_SERVICE);
    const book = runtime.getService<EloBookService>(ELO_BOOK_SERVICE);
    if (!scan || !book) return 0;
    await scan.scanLessonsReady();
    await book.ratingsReadAhead();
    const texts = [...scan.scanLessons.all().slice(-LESSON_MESSAGES).map((l) => l.text), ...EVERYDAY_SENTENCES];
    let assembled = 0;
    for (; assembled < calls && !stopping(); assembled++) {
      await assembleContext(runtime, madeUpMessage(runtime, texts[assembled % texts.length] as string)).elo();
      await yieldToEventLoop();
    }
    return assembled;
  }).catch((error: unknown) => {
    // A runtime stopped meanwhile (a CLI command that is done) is no failure.
    if (!stopping()) runtime.logger.warn({ src: 'plugin:self-improve:context', agentId: runtime.agentId, error: errorText(error) }, 'prompt context not warmed up after start; the first prompts assemble it cold');
    return 0;
  });
  warmUps.set(runtime, warmUp);
}

/** Resolves once the warm-up `warmUpContextInBackground` started for this runtime is over, with the contexts it assembled (0 at once when none was started). */
export function contextWarmedUp(runtime: IAgentRuntime): Promise<number> {
  return warmUps.get(runtime) ?? Promise.resolve(0);
}

function madeUpMessage(runtime: IAgentRuntime, text: string): Memory {
  return { entityId: runtime.agentId, agentId: runtime.agentId, roomId: runtime.agentId, content: { text } };
}
