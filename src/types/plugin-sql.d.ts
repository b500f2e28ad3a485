// plugin-sql 1.7.2 ships typings that point at files it does not ship; this shim
// declares the two exports this package uses.
declare module '@elizaos/plugin-sql' {
  import type { Plugin } from '@elizaos/core';
  export const plugin: Plugin;
  const sqlPlugin: Plugin;
  export default sqlPlugin;
}
