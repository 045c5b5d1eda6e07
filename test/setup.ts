// The catalog cache is on by default and lives in the user's cache folder: the suite keeps it off, so
// a test never lists tools another test (or an earlier run) left there, and never writes into the
// real home. Tests of the cache turn it on with their own folder.
process.env.MCP_BRIDGE_CATALOG_CACHE ??= "off";
// Pinned tool definitions live in the same folder: off too, except in the tests of pins.
process.env.MCP_BRIDGE_PINS ??= "off";
// OAuth tokens go to the OS keychain when one answers: the suite keeps them in its own files, so a test
// never writes into a developer's keychain. The tests of the keychain use a private Secret Service.
process.env.MCP_BRIDGE_TOKEN_STORE ??= "file";
