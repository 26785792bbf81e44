// Loaded before every mocha suite (.mocharc.json "require"): servers started by the tests, in this
// process or as child processes, check every reply against the route's response schema.
process.env.BATON_CHECK_REPLIES = '1';
