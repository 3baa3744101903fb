// graphql-inspector diff's completion handler: writes the breaking changes, as JSON, to the
// file BREAKING_CHANGES_FILE names, for scripts/check-breaking to judge against the
// changelog and the version (the inspector's own handler fails on any of them).
const { writeFileSync } = require("node:fs");

module.exports = ({ breakingChanges }) => {
  const found = breakingChanges.map(({ path, message }) => ({ path: path ?? null, message }));
  writeFileSync(process.env.BREAKING_CHANGES_FILE, JSON.stringify(found));
};
