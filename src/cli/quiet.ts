// Imported first by CLI entry points: the runtime's logger reads LOG_LEVEL when it loads, and a
// command line tool should show warnings and errors only, unless the user asks for more.
process.env.LOG_LEVEL ??= 'warn';
