// Preloaded by bunfig.toml: keep the runtime's logs to warnings and errors during tests.
process.env.LOG_LEVEL ??= 'error';
