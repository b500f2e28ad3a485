import type { Action } from '@elizaos/core';

/** A test-only action whose run fails: the rules tests watch it become a `mistake` event. */
export const deployApp: Action = {
  name: 'DEPLOY_APP',
  description: 'deploys the app',
  similes: [],
  examples: [],
  validate: async () => true,
  handler: async () => ({ success: false, text: 'deploy failed', error: 'exit code 1: permission denied on /srv/app' }),
};
