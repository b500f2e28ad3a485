import { expect, test } from 'bun:test';
import selfImprovePlugin from '../../src/index';
import { PLUGIN_SERVICES } from '../../src/shared/service-names';

// The ELO book's warm-up waits for every other service in PLUGIN_SERVICES: the list names exactly the plugin's services.
test('PLUGIN_SERVICES names every service the plugin registers, and no other', () => {
  const registered = (selfImprovePlugin.services ?? []).map((s) => (s as unknown as { serviceType: string }).serviceType);
  expect([...registered].sort()).toEqual([...PLUGIN_SERVICES].sort());
});
